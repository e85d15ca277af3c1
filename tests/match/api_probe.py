"""Programs that call landing.match.api the ways a user's program does, each in a process of its own (a process has one
Twisted reactor; the test runner's must stay without one): `python -m tests.match.api_probe SCENARIO SANDBOX INPUT...`
prints one JSON value a line (tests/match/test_api.py reads them).

Where a scenario needs to know that a crawl is under way, or to prove whose loop carried it, it points the crawl at a
relay to the sandbox (LANDING_SANDBOX is the proxy every request of the crawl goes through): a TCP relay it runs
itself, which counts connections and can hold one unanswered.
"""

import asyncio
import contextlib
import json
import signal
import sys
import threading
from concurrent.futures import ThreadPoolExecutor

SETTINGS = {"LANDING_ARTIFACTS_DIR": "/nonexistent"}  # no artifact: the comparison with `scrapy match` is the point


class Relay:
    """A TCP relay to the sandbox on the running loop; `hold(n)`: whether the n-th connection (1, 2...) is held
    unanswered instead of relayed; `dropped` is set when the client drops a held connection."""

    def __init__(self, sandbox: str, hold=lambda n: False):
        host, port = sandbox.removeprefix("http://").rsplit(":", 1)
        self.target, self.hold, self.connections, self.held = (host, int(port)), hold, 0, []
        self.dropped = threading.Event()

    async def start(self) -> str:
        self.server = await asyncio.start_server(self._connection, "127.0.0.1", 0)
        return f"http://127.0.0.1:{self.server.sockets[0].getsockname()[1]}"

    async def close(self):
        self.server.close()
        for writer in self.held:
            writer.close()

    async def _connection(self, reader, writer):
        self.connections += 1
        if self.hold(self.connections):
            self.held.append(writer)
            with contextlib.suppress(ConnectionError):
                await reader.read()  # until the client closes or resets it
            self.dropped.set()
            return
        upstream_reader, upstream = await asyncio.open_connection(*self.target)
        await asyncio.gather(_pipe(reader, upstream), _pipe(upstream_reader, writer), return_exceptions=True)


async def _pipe(reader, writer):
    try:
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
    finally:
        writer.close()


def _print(value):
    print(json.dumps(value), flush=True)


def three(sandbox, inputs):
    """match() three times in one process: as `scrapy match`; with fetch "all"; from two threads at once."""
    from landing.match.api import match

    settings = {**SETTINGS, "LANDING_SANDBOX": sandbox}
    for fetch in (True, "all"):
        _print(match(inputs, settings=settings, fetch=fetch))
    with ThreadPoolExecutor(2) as threads:
        _print(list(threads.map(lambda _: match(inputs, settings=settings), range(2))))


def _plain(inputs) -> list[str]:
    """The first input's page over http: its first request (robots.txt) a plain one through the proxy, which a
    stopped crawl drops (a tunnel's CONNECT in progress is Twisted's to give up). No artifact lists its host: it is
    fetched with fetch "all" only."""
    return [inputs[0].replace("https://", "http://", 1)]


def interrupted(sandbox, inputs):
    """Ctrl-C while match()'s crawl waits on a request: the call raises KeyboardInterrupt once its crawl has dropped
    the request; the next call answers."""
    from landing.match.api import match

    # A terminal's Ctrl-C reaches a Python whose SIGINT raises KeyboardInterrupt: whatever the process that started
    # this one ignored or blocked (both are inherited), and the signal to the main thread, waiting in match().
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    main = threading.main_thread().ident
    loop = asyncio.new_event_loop()
    threading.Thread(target=loop.run_forever, daemon=True).start()

    def first(n):
        if n == 1:
            signal.pthread_kill(main, signal.SIGINT)
        return n == 1

    relay = Relay(sandbox, hold=first)
    settings = {**SETTINGS, "LANDING_SANDBOX": asyncio.run_coroutine_threadsafe(relay.start(), loop).result()}
    try:
        match(_plain(inputs), settings=settings, fetch="all")
        _print("finished")
    except KeyboardInterrupt:
        _print("interrupted")
    _print({"dropped": relay.dropped.wait(30)})
    _print(match(inputs, settings=settings))


def awaited(sandbox, inputs):
    """amatch() from asyncio.run, three times: a call whose every request goes through a relay on the caller's own
    loop (it can only finish if that loop runs meanwhile), a task ticking beside it; a call cancelled while a request
    is held; a plain call."""
    from landing.match.api import amatch

    settings = {**SETTINGS, "LANDING_SANDBOX": sandbox}

    async def beside():
        relay, ticks = Relay(sandbox), [0]
        proxy = await relay.start()

        async def tick():
            while True:
                ticks[0] += 1
                await asyncio.sleep(0.01)

        ticking = asyncio.create_task(tick())
        results = await amatch(inputs, settings={**settings, "LANDING_SANDBOX": proxy})
        during = ticks[0]
        ticking.cancel()
        await relay.close()
        return results, relay.connections, during

    results, relayed, ticks = asyncio.run(beside())
    _print(results)
    _print({"relayed": relayed, "ticks": ticks})

    async def cancelled():
        asked = asyncio.Event()

        def first(n):
            if n == 1:
                asked.set()
            return n == 1

        relay = Relay(sandbox, hold=first)
        proxy = await relay.start()
        call = asyncio.create_task(amatch(_plain(inputs), settings={**settings, "LANDING_SANDBOX": proxy}, fetch="all"))
        await asked.wait()
        call.cancel()
        try:
            await call
            ended = "finished"
        except asyncio.CancelledError:
            ended = "cancelled"
        dropped = await asyncio.to_thread(relay.dropped.wait, 30)
        await relay.close()
        return ended, dropped

    ended, dropped = asyncio.run(cancelled())
    _print(ended)
    _print({"dropped": dropped})
    _print(asyncio.run(amatch(inputs, settings=settings)))


def foreign(sandbox, inputs):
    """A process that installed its own asyncio reactor: match() says what to do instead; amatch() awaited on that
    reactor's loop runs there."""
    from scrapy.utils.reactor import install_reactor

    install_reactor("twisted.internet.asyncioreactor.AsyncioSelectorReactor")
    from twisted.internet import defer, reactor

    from landing.match.api import ReactorError, amatch, match

    settings = {**SETTINGS, "LANDING_SANDBOX": sandbox}
    try:
        match(inputs, settings=settings)
        _print("ran")
    except ReactorError as error:
        _print(str(error))

    def done(results):
        _print(results)
        reactor.stop()

    def start():
        call = asyncio.ensure_future(amatch(inputs, settings=settings))
        defer.Deferred.fromFuture(call).addBoth(done)

    reactor.callWhenRunning(start)
    reactor.run()


if __name__ == "__main__":
    scenario, proxy, *texts = sys.argv[1:]
    {"three": three, "interrupted": interrupted, "awaited": awaited, "foreign": foreign}[scenario](proxy, texts)
