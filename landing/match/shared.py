"""Answers a matcher keeps: in this process (`Recent`, `LocalAnswers`), or in Redis for every instance that shares
LANDING_MATCH_REDIS (`SharedAnswers`), each for LANDING_MATCH_CACHE_HOURS.

Two kinds: the answers to the cascade's questions (Handle API records, Crossref's PII and title answers, where a
DOI resolves to; never a page's body), keyed by a tuple, and the finished results of inputs, keyed by the
artifact version, the fetch policy and the input's text. A Redis that fails is a cache that misses: never an error
for the question, and counted (`stats`), with a warning at most once a minute.
"""

import asyncio
import hashlib
import json
import logging
import time
from collections import OrderedDict
from urllib.parse import urlsplit

import redis.asyncio
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff

logger = logging.getLogger(__name__)

# After a Redis error, Redis is not asked again for this long: a server that is down would otherwise cost every
# question a connection attempt (and, across a network, its timeout).
PAUSE_SECONDS = 5.0
WARN_EVERY = 60.0
TIMEOUT = 2.0  # seconds a Redis command may take before it counts as an error (a local answer takes under 1 ms)


class Recent:
    """At most `entries` values, the least recently used dropped first, each kept for `ttl` seconds (None: for
    ever) on `clock`.

    >>> recent = Recent(entries=2)
    >>> recent.put("a", 1); recent.put("b", 2); recent.get("a"); recent.put("c", 3)
    (True, 1)
    >>> recent.get("b"), len(recent)
    ((False, None), 2)
    """

    def __init__(self, entries: int, ttl: float | None = None, clock=time.monotonic):
        if entries < 1:
            raise ValueError(f"entries={entries}: keep at least 1")
        self.entries, self.ttl, self.clock = entries, ttl, clock
        self.values: OrderedDict = OrderedDict()  # key -> (value, when it expires)

    def __len__(self) -> int:
        return len(self.values)

    def get(self, key) -> tuple[bool, object]:
        """(True, value) when key is held and fresh, else (False, None)."""
        held = self.values.get(key)
        if held is None:
            return False, None
        value, expires = held
        if expires is not None and self.clock() >= expires:
            del self.values[key]
            return False, None
        self.values.move_to_end(key)
        return True, value

    def put(self, key, value) -> None:
        self.values[key] = (value, None if self.ttl is None else self.clock() + self.ttl)
        self.values.move_to_end(key)
        while len(self.values) > self.entries:
            self.values.popitem(last=False)


def answers_of(cfg) -> "SharedAnswers | LocalAnswers":
    """The answers a matcher's Config asks for: in Redis with LANDING_MATCH_REDIS, else in this process; each
    kept LANDING_MATCH_CACHE_HOURS, tuning.MATCH_CACHE_ENTRIES of them in memory."""
    ttl = cfg.match_cache_hours * 3600
    if cfg.match_redis:
        return SharedAnswers(cfg.match_redis, ttl, namespace_of(cfg), entries=cfg.match_cache_entries)
    return LocalAnswers(cfg.match_cache_entries, ttl)


def namespace_of(cfg) -> str:
    """The Redis namespace of the matchers that ask the same web: a sandbox's answers (or another resolver's, another
    registry's) never reach a matcher of the real web sharing the Redis. A digest: a sandbox URL may hold credentials.
    """
    asked = [cfg.sandbox or "", cfg.doi_resolver, cfg.crossref_api, cfg.datacite_api]
    return f"landing:match:{_sha256(json.dumps(asked))[:16]}"


def question_key(namespace: str, key: tuple) -> str:
    """A question's Redis key: its tuple hashed, so that no DOI (up to 1,000 characters) makes a long key and no
    separator inside one is ambiguous."""
    return f"{namespace}:q:{_sha256(json.dumps(list(key), ensure_ascii=False))}"


def result_key(namespace: str, version: str, fetch: str, text: str) -> str:
    """A result's Redis key: the artifact version and fetch policy it was matched with, and the input's hash."""
    # `r2`: results since verification holds only the seeds' seven, the finer checks beside it; an older process's
    # results are never served as today's.
    return f"{namespace}:r2:{version or 'none'}:{fetch}:{_sha256(text)}"


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


class LocalAnswers:
    """Answers and results kept in this process only (no LANDING_MATCH_REDIS): SharedAnswers' interface, so that a
    matcher has one object to call either way. A result handed out is the object stored: callers do not change it."""

    def __init__(self, entries: int = 100_000, ttl_seconds: float | None = None, clock=time.monotonic):
        self.answers = Recent(entries, ttl_seconds, clock)
        self.results = Recent(entries, ttl_seconds, clock)
        self.stats = {"hits": 0, "misses": 0, "errors": 0}

    async def get(self, key: tuple) -> tuple[bool, object]:
        return self._counted(self.answers.get(key))

    async def put(self, key: tuple, value) -> None:
        self.answers.put(key, value)

    async def get_result(self, version: str, fetch: str, text: str) -> dict | None:
        return self._counted(self.results.get((version, fetch, text)))[1]

    async def put_result(self, version: str, fetch: str, text: str, result: dict) -> None:
        self.results.put((version, fetch, text), result)

    async def close(self) -> None:
        pass

    def _counted(self, found: tuple[bool, object]) -> tuple[bool, object]:
        self.stats["hits" if found[0] else "misses"] += 1
        return found


class SharedAnswers:
    """Answers and results in Redis, with a TTL, for every matcher that names the same server. Results found are
    also kept in this process (`entries` of them), so that an input asked again costs no round trip.

    The reads (and the writes) asked in one turn of the event loop go to Redis as one MGET (one pipeline of SETs):
    a round trip costs a context switch to the server, most of a command's cost on a busy host, and concurrent
    inputs ask together."""

    def __init__(
        self,
        url: str,
        ttl_seconds: float,
        namespace: str = "landing:match",
        *,
        entries: int = 100_000,
        clock=time.monotonic,
    ):
        # No retries inside a command: a miss now is cheaper than a question held while Redis reconnects.
        self.client = redis.asyncio.Redis.from_url(
            url, socket_timeout=TIMEOUT, socket_connect_timeout=TIMEOUT, retry=Retry(NoBackoff(), 0)
        )
        self.where = _where(url)
        self.ttl_ms = max(1, int(ttl_seconds * 1000))
        self.namespace, self.clock = namespace, clock
        self.results = Recent(entries, ttl_seconds, clock)
        self.stats = {"hits": 0, "misses": 0, "errors": 0}
        self.paused_until = float("-inf")
        self.warned = float("-inf")
        self.reads: dict = {}  # key -> the futures waiting for its value, sent at the end of this loop turn
        self.writes: dict = {}  # key -> (its JSON, the futures waiting for it to be written)
        self.sending: set = set()  # the batches in flight

    async def get(self, key: tuple) -> tuple[bool, object]:
        """(True, value) when an instance wrote this question's answer and its TTL has not passed, else (False,
        None): a Redis that fails or holds no JSON included."""
        return await self._get(question_key(self.namespace, key))

    async def put(self, key: tuple, value) -> None:
        """Keep a question's answer (JSON: dicts, lists, strings, numbers, None) for the TTL."""
        await self._put(question_key(self.namespace, key), value)

    async def get_result(self, version: str, fetch: str, text: str) -> dict | None:
        """An input's result as an instance stored it, or None."""
        found, result = self.results.get((version, fetch, text))
        if found:
            self.stats["hits"] += 1
            return result
        found, result = await self._get(result_key(self.namespace, version, fetch, text))
        if not found or not isinstance(result, dict):
            return None
        self.results.put((version, fetch, text), result)
        return result

    async def put_result(self, version: str, fetch: str, text: str, result: dict) -> None:
        self.results.put((version, fetch, text), result)
        await self._put(result_key(self.namespace, version, fetch, text), result)

    async def close(self) -> None:
        """Wait for the batches in flight, then close the connections."""
        while self.sending:
            await asyncio.gather(*self.sending, return_exceptions=True)
        await self.client.aclose()

    async def _get(self, key: str) -> tuple[bool, object]:
        if self.clock() < self.paused_until:
            self.stats["misses"] += 1
            return False, None
        try:
            raw = await self._queued(self.reads, key, self._send_reads)
            value = None if raw is None else json.loads(raw)
        except (redis.RedisError, OSError, ValueError) as error:
            self._failed(error)
            self.stats["misses"] += 1
            return False, None
        self.stats["hits" if raw is not None else "misses"] += 1
        return raw is not None, value

    async def _put(self, key: str, value) -> None:
        if self.clock() < self.paused_until:
            return
        try:
            await self._queued(self.writes, key, self._send_writes, json.dumps(value, ensure_ascii=False))
        except (redis.RedisError, OSError) as error:
            self._failed(error)

    def _queued(self, queue: dict, key: str, send, value=None) -> asyncio.Future:
        """A future for key's read or write, sent with the others of this loop turn by send(batch)."""
        loop = asyncio.get_running_loop()
        if not queue:
            loop.call_soon(self._send, queue, send)
        future = loop.create_future()
        queue.setdefault(key, [value, []])[0] = value  # a key written twice in one turn: its last value
        queue[key][1].append(future)
        return future

    def _send(self, queue: dict, send) -> None:
        batch = dict(queue)
        queue.clear()
        task = asyncio.ensure_future(self._answer(batch, send))
        self.sending.add(task)
        task.add_done_callback(self.sending.discard)

    async def _answer(self, batch: dict, send) -> None:
        """Each waiting future gets its key's answer, or the batch's error (cancelled when the batch is)."""
        try:
            answers = await send(batch)
        except asyncio.CancelledError:
            for _, futures in batch.values():
                for future in futures:
                    future.cancel()
            raise
        except Exception as error:
            answers = [error] * len(batch)
        for (_, futures), answer in zip(batch.values(), answers):
            for future in futures:
                if future.done():
                    continue  # its asker gave up
                if isinstance(answer, Exception):
                    future.set_exception(answer)
                else:
                    future.set_result(answer)

    async def _send_reads(self, batch: dict) -> list:
        return await self.client.mget(list(batch))

    async def _send_writes(self, batch: dict) -> list:
        async with self.client.pipeline(transaction=False) as pipe:
            for key, (value, _) in batch.items():
                pipe.set(key, value, px=self.ttl_ms)
            return await pipe.execute()

    def _failed(self, error: Exception) -> None:
        now = self.clock()
        self.stats["errors"] += 1
        self.paused_until = now + PAUSE_SECONDS
        if now - self.warned >= WARN_EVERY:
            self.warned = now
            logger.warning(
                "match cache at %s failed (%d errors so far): %s: %s; answering without it for %g s",
                self.where,
                self.stats["errors"],
                type(error).__name__,
                error,
                PAUSE_SECONDS,
            )


def _where(url: str) -> str:
    """Host and port of a Redis URL, as a log may name it (no password)."""
    parts = urlsplit(url)
    return f"{parts.hostname}:{parts.port or 6379}" if parts.hostname else parts.path or "redis"
