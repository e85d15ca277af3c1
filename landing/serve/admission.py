"""Which connections the service takes, and for how long (docs/service.md "Connections and memory").

`Admission` counts the open connections, in all and per peer address, and refuses one past either cap at once; it
holds the timeouts of a request's head and body, logs refused heads, and gives memory back once a
burst of connections has closed. `file_limit` raises the process's file limit; `quiet_accept_errors` turns asyncio's
traceback per failed accept() into a line a minute.
"""

import asyncio
import ctypes
import ctypes.util
import errno
import gc
import resource
from collections import Counter
from dataclasses import dataclass

# How often (seconds) closed connections are counted out, and at most one line a minute for a repeated refusal.
SWEEP_SECONDS = 1.0
LOG_EVERY = 60.0
# Memory is handed back to the system once this many connections have closed since the busiest moment, and at
# least half of those open then have: after a burst, not after every client that leaves; and at most once in
# TRIM_EVERY seconds, since a collection of the whole heap holds the event loop for a moment.
TRIM_AFTER, TRIM_EVERY = 256, 10.0
# asyncio's context message when accept() fails for want of descriptors or memory (selector_events).
ACCEPT_FAILED = "socket.accept() out of system resource"
OUT_OF_RESOURCES = (errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM)


def connection_cap(wanted: int, file_limit: int) -> int:
    """Connections the service may hold: `wanted`, but at most three quarters of the file limit (the rest for the
    crawl's connections, Redis, the logs), and at least one.

    >>> connection_cap(4096, 1_048_576), connection_cap(4096, 1024), connection_cap(4096, 1)
    (4096, 768, 1)
    """
    return max(1, min(wanted, file_limit * 3 // 4))


def client_connections(wanted: int, concurrency: int) -> int:
    """Connections one peer address may hold: `wanted`, or four for each request it may have in flight when more
    (a reverse proxy, for which LANDING_SERVE_CLIENT_CONCURRENCY is raised, opens one per request in flight).

    >>> client_connections(256, 64), client_connections(256, 1000)
    (256, 4000)
    """
    return max(wanted, 4 * concurrency)


def file_limit() -> int:
    """The soft limit on open files, raised to the hard limit first where the system allows it."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and soft < hard:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
            soft = hard
        except (ValueError, OSError):
            pass  # a container may refuse: the soft limit stays, and the cap follows it
    return soft


@dataclass
class Tally:
    """Events counted for a log line at most every `every` seconds: `note(now)` gives the count to log when a line is
    due (the first event, then the first one `every` seconds after the last line), else None.

    >>> tally = Tally(60.0)
    >>> [tally.note(t) for t in (0.0, 1.0, 2.0, 61.0, 62.0)]
    [1, None, None, 3, None]
    >>> tally.due(100.0), tally.due(121.0), tally.due(122.0)  # the one of 62.0, once its minute has passed
    (None, 1, None)
    """

    every: float
    count: int = 0
    logged: float = float("-inf")

    def note(self, now: float) -> int | None:
        self.count += 1
        if now - self.logged < self.every:
            return None
        count, self.count, self.logged = self.count, 0, now
        return count

    def due(self, now: float) -> int | None:
        """The count not yet logged, when its line is due and there is one, else None."""
        if not self.count or now - self.logged < self.every:
            return None
        count, self.count, self.logged = self.count, 0, now
        return count


def refusal(total: int, mine: int, cap: int, client_cap: int) -> str | None:
    """Why one more connection is refused, with `total` open and `mine` from its peer; None when it is taken.

    >>> refusal(10, 2, 100, 4), refusal(10, 4, 100, 4), refusal(100, 0, 100, 4)
    (None, 'client', 'total')
    """
    if total >= cap:
        return "total"
    if mine >= client_cap:
        return "client"
    return None


class Admission:
    """The open connections, by transport and peer; `admit` refuses one past `cap` in all or `client_cap` from its
    peer. A connection's own protocol `release`s it when it closes; those handed to aiohttp are counted out by a sweep
    once their transport is closing. `head`: the seconds a request head may take from its first byte; `body`: those a
    request body may go without a byte; `trim`: what hands free memory back (glibc's malloc_trim)."""

    def __init__(self, cap: int, client_cap: int, logger, *, head: float, body: float, trim=None):
        self.cap, self.client_cap, self.logger = cap, client_cap, logger
        self.head, self.body = head, body
        self.open: dict = {}  # transport -> its peer address
        self.peers: Counter = Counter()
        self.refused = {"total": Tally(LOG_EVERY), "client": Tally(LOG_EVERY)}
        self.refusals = 0
        self.busiest = 0  # connections open at the busiest moment since memory was last handed back
        self.trimmed = float("-inf")  # when it was
        self.trim = trimmer() if trim is None else trim
        self.sweeper = None

    def admit(self, transport, peer: str) -> bool:
        """Count the connection in; False (and counted as refused) when it is over a cap."""
        why = refusal(len(self.open), self.peers[peer], self.cap, self.client_cap)
        if why is not None:
            self._sweep()  # connections closed since the last sweep do not count
            why = refusal(len(self.open), self.peers[peer], self.cap, self.client_cap)
        if why is not None:
            self.refusals += 1
            self._said(why, self.refused[why].note(asyncio.get_running_loop().time()), peer)
            return False
        self.open[transport] = peer
        self.peers[peer] += 1
        self.busiest = max(self.busiest, len(self.open))
        if self.sweeper is None:
            self.sweeper = asyncio.get_running_loop().call_later(SWEEP_SECONDS, self._swept)
        return True

    def release(self, transport) -> None:
        """Count a closed connection out (again: nothing)."""
        peer = self.open.pop(transport, None)
        if peer is not None:
            self.peers[peer] -= 1
            if not self.peers[peer]:
                del self.peers[peer]

    def _said(self, why: str, count: int | None, peer: str = "") -> None:
        if count is not None:
            limit = f"{self.cap} in all" if why == "total" else f"{self.client_cap} from one address {peer}".rstrip()
            self.logger.warning("refused %d connection(s) over the cap of %s (at most one line a minute)", count, limit)

    def refused_head(self, peer: str, status: int, why: str) -> None:
        """One line for a request head refused (414, 431)."""
        self.logger.info("refused a request from %s: %d %s", peer, status, why)  # as landing.serve.refusals says it

    def close(self) -> None:
        if self.sweeper is not None:
            self.sweeper.cancel()
            self.sweeper = None

    def _sweep(self) -> None:
        for transport in [t for t in self.open if t.is_closing()]:
            self.release(transport)

    def _swept(self) -> None:
        self._sweep()
        left, now = len(self.open), asyncio.get_running_loop().time()
        for why, tally in self.refused.items():  # refusals since the last line, once a minute has passed
            self._said(why, tally.due(now))
        burst = self.busiest - left >= TRIM_AFTER and left * 2 <= self.busiest
        if burst and now - self.trimmed >= TRIM_EVERY:
            self.trim()
            self.busiest, self.trimmed, burst = left, now, False
        # Swept while connections are open, or a trim or a line waits for its turn.
        waiting = left or burst or any(tally.count for tally in self.refused.values())
        self.sweeper = asyncio.get_running_loop().call_later(SWEEP_SECONDS, self._swept) if waiting else None


# Python's cycle collector in `scrapy serve`: young collections as Python's defaults have them, a full one only after a
# thousand middle ones (Python's: ten). Every new input's result is kept, so the heap grows by the cached results, and a
# full collection walked all of them, stopping the loop for a tenth of a second every few seconds under new inputs: the
# p99 of new inputs went from about 100 ms to under 40 (bench/README.md "service.py", issue 46). Cycles still die young,
# and the idle trim (`trimmer`) collects the rest.
GC_THRESHOLDS = (700, 10, 1000)


def collect_rarely(thresholds: tuple[int, int, int] = GC_THRESHOLDS) -> None:
    """Run the cycle collector's full collections rarely (GC_THRESHOLDS): a service's heap is mostly its kept results,
    which a full collection walks whole while every client waits."""
    gc.set_threshold(*thresholds)


def trimmer():
    """A function that frees what closed connections left and hands the C heap's free memory back to the system."""
    name = ctypes.util.find_library("c")
    try:
        malloc_trim = ctypes.CDLL(name).malloc_trim  # glibc's
    except (OSError, AttributeError, TypeError):
        malloc_trim = None
    else:
        malloc_trim.argtypes, malloc_trim.restype = [ctypes.c_size_t], ctypes.c_int

    def trim():
        # A closed connection's objects hold one another (a parser and its protocol, a handler and its tasks): only
        # the cycle collector frees them, and in a process that allocates little it may not run for hours.
        gc.collect()
        if malloc_trim is not None:
            malloc_trim(0)

    return trim


def quiet_accept_errors(loop, logger) -> None:
    """asyncio logs a traceback for every accept() that fails for want of descriptors, and retries the rest of its
    backlog in the same turn, over and over. Those become one line a minute with their count; every other error
    goes to the handler there was. asyncio's pause after each (a second) does not stop the retries: the caps are what
    keep the service's own connections from getting there."""
    before = loop.get_exception_handler()
    tally = Tally(LOG_EVERY)

    def handler(loop, context):
        failed = context.get("exception")
        if context.get("message") == ACCEPT_FAILED and getattr(failed, "errno", None) in OUT_OF_RESOURCES:
            count = tally.note(loop.time())
            if count is not None:
                logger.warning("accept() failed %d time(s) (at most one line a minute): %s", count, failed)
            return
        if before is not None:
            before(loop, context)
        else:
            loop.default_exception_handler(context)

    loop.set_exception_handler(handler)


async def chunks(content, seconds: float):
    """A request body's chunks as they come (aiohttp's StreamReader); TimeoutError when none comes for `seconds`."""
    while True:
        async with asyncio.timeout(seconds):
            chunk = await content.readany()
        if not chunk:
            return
        yield chunk
