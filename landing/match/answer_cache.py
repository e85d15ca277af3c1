"""Answers a matcher keeps: in this process (`LocalAnswers`), or in Redis for every instance that shares
LANDING_MATCH_REDIS (`SharedAnswers`), each for LANDING_MATCH_CACHE_HOURS: stacks of layers (landing.match.cache_layers).

Two kinds: the answers to the cascade's questions (Handle API records, Crossref's PII and title answers, where a
DOI resolves to; never a page's body), keyed by a tuple, and the finished results of inputs, keyed by the
artifact version, the fetch policy and the input's text. Each is a stack: this process's LRU first, then Redis.
A Redis that fails is a cache that misses: never an error for the question, and counted (`stats`), with a warning at
most once a minute.
"""

import asyncio
import hashlib
import json
import logging
import time
from urllib.parse import urlsplit

import redis.asyncio
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff

from landing import tuning
from landing.core.matching.input_lines import dumps
from landing.match.cache_layers import Layer, Memory, stack

logger = logging.getLogger(__name__)

# After a Redis error, Redis is not asked again for this long: a server that is down would otherwise cost every
# question a connection attempt (and, across a network, its timeout).
PAUSE_SECONDS = 5.0
WARN_EVERY = 60.0
TIMEOUT = 2.0  # seconds a Redis command may take before it counts as an error (a local answer takes far less)
# A result's bytes in memory, estimated from its input's length: what any result holds besides text, and its input
# at most twice (the input, and a URL or piece of it); above what a result was measured to take (docs/service.md
# "Connections and memory").
RESULT_BYTES, INPUT_COPIES = 1024, 2


def answers_of(cfg) -> "Answers":
    """The answers a matcher's Config asks for: in Redis with LANDING_MATCH_REDIS, else in this process; each
    kept LANDING_MATCH_CACHE_HOURS, tuning.MATCH_CACHE_ENTRIES of them in memory (and their results in
    tuning.MATCH_CACHE_BYTES)."""
    ttl = cfg.match_cache_hours * 3600
    entries, weight = cfg.match_cache_entries, cfg.match_cache_bytes
    if cfg.match_redis:
        return SharedAnswers(cfg.match_redis, ttl, namespace_of(cfg), entries=entries, weight=weight)
    return LocalAnswers(entries, ttl, weight=weight)


def result_weight(key: tuple, result) -> int:
    """A kept result's estimated bytes in memory, from its key (version, fetch, input).

    >>> result_weight(("v", "none", "10.1234/x"), {}), result_weight(("v", "none", "x" * 100_000), {})
    (1042, 201024)
    """
    return RESULT_BYTES + INPUT_COPIES * len(key[2])


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


class Answers:
    """The matcher's two caches, each a stack of layers (landing.match.cache_layers): the answers to the cascade's questions,
    keyed by a tuple, and the results of inputs, keyed by the artifact version, the fetch policy and the input's text.
    `stats`: hits, misses and Redis errors. A result handed out is the object stored: callers do not change it."""

    def __init__(self, questions: Layer, results: Layer, stats: dict):
        self.questions, self.results, self.stats = questions, results, stats

    async def get(self, key: tuple) -> tuple[bool, object]:
        """(True, value) when a question's answer is kept, else (False, None)."""
        return await self.questions.get(key)

    def held(self, key: tuple) -> tuple[bool, object]:
        """get, from this process's own layer alone and at once: (False, None) when only Redis might hold it."""
        return self.questions.held(key)

    async def put(self, key: tuple, value) -> None:
        """Keep a question's answer (JSON: dicts, lists, strings, numbers, None) for the TTL."""
        await self.questions.put(key, value)

    async def get_result(self, version: str, fetch: str, text: str) -> dict | None:
        """An input's result as it was kept, or None."""
        return (await self.results.get((version, fetch, text)))[1]

    async def put_result(self, version: str, fetch: str, text: str, result: dict) -> None:
        await self.results.put((version, fetch, text), result)

    async def close(self) -> None:
        await self.questions.close()
        await self.results.close()


class LocalAnswers(Answers):
    """Answers and results kept in this process only (no LANDING_MATCH_REDIS): `entries` of each, and results of
    `weight` bytes in all (result_weight's estimate)."""

    def __init__(
        self,
        entries: int = 100_000,
        ttl_seconds: float | None = None,
        clock=time.monotonic,
        *,
        weight: int = tuning.MATCH_CACHE_BYTES,
    ):
        stats = {"hits": 0, "misses": 0, "errors": 0}
        # The questions' own lookups are not counted: the counters are the results' (and Redis's, when shared).
        questions = stack(Memory(entries, ttl_seconds, clock))
        results = Memory(entries, ttl_seconds, clock, weigh=result_weight, weight=weight)
        super().__init__(questions, stack(results, stats=stats), stats)


class SharedAnswers(Answers):
    """Answers and results in Redis, with a TTL, for every matcher that names the same server, each also kept in this
    process (`entries` of them), so that a question or an input asked again costs no round trip."""

    def __init__(
        self,
        url: str,
        ttl_seconds: float,
        namespace: str = "landing:match",
        *,
        entries: int = 100_000,
        weight: int = tuning.MATCH_CACHE_BYTES,
        clock=time.monotonic,
    ):
        self.redis = Redis(url, ttl_seconds, clock)
        self.namespace = namespace
        questions = stack(
            Memory(entries, ttl_seconds, clock), RedisLayer(self.redis, lambda key: question_key(namespace, key))
        )
        results = stack(
            Memory(entries, ttl_seconds, clock, weigh=result_weight, weight=weight),
            RedisLayer(self.redis, lambda key: result_key(namespace, *key), counted=False, kept=_is_result),
            stats=self.redis.stats,
        )
        super().__init__(questions, results, self.redis.stats)

    @property
    def ttl_ms(self) -> int:
        return self.redis.ttl_ms

    async def close(self) -> None:
        await super().close()
        await self.redis.close()


def _is_result(value) -> bool:
    return isinstance(value, dict)


class RedisLayer:
    """A layer in Redis (landing.match.cache_layers): `keyed(key)` names a key's value there; `kept(value)` says whether a
    value found is one (another program's value under our key is a miss). `counted`: whether its hits and misses
    are counted in the connection's stats (its errors always are)."""

    def __init__(self, redis: "Redis", keyed, *, counted: bool = True, kept=None):
        self.redis, self.keyed, self.counted, self.kept = redis, keyed, counted, kept

    async def get(self, key) -> tuple[bool, object]:
        found, value = await self.redis.get(self.keyed(key), self.counted)
        if found and self.kept is not None and not self.kept(value):
            return False, None
        return found, value

    async def put(self, key, value) -> None:
        await self.redis.put(self.keyed(key), value)

    def keep(self, key, value) -> bool:
        self.redis.keep(self.keyed(key), value)
        return True

    async def close(self) -> None:
        pass  # the connection is the answers' to close, once for every layer on it


class Redis:
    """The connection every Redis layer of a matcher shares, pipelined by itself: the reads and writes asked while no
    batch is out go to Redis as one round trip (the writes' SETs and one MGET of the reads), and those asked while one
    is out wait for it to come back, then go together as the next. A round trip costs a context switch to the server
    and redis-py's own work, most of a command's cost on a busy host: under load the batches grow, the round trips
    a second stay what the link allows, and an answer costs no more than one of them."""

    def __init__(self, url: str, ttl_seconds: float, clock=time.monotonic):
        # No retries inside a command: a miss now is cheaper than a question held while Redis reconnects.
        self.client = redis.asyncio.Redis.from_url(
            url, socket_timeout=TIMEOUT, socket_connect_timeout=TIMEOUT, retry=Retry(NoBackoff(), 0)
        )
        self.where = _where(url)
        self.ttl_ms = max(1, int(ttl_seconds * 1000))
        self.clock = clock
        self.stats = {"hits": 0, "misses": 0, "errors": 0}
        self.paused_until = float("-inf")
        self.warned = float("-inf")
        self.reads: dict = {}  # key -> [None, the futures waiting for its value], for the next batch
        self.writes: dict = {}  # key -> [its JSON, the futures waiting for it to be written], for the next batch
        self.sending: set = set()  # the batch in flight (at most one)
        self.scheduled = False  # a batch is to go at the end of this loop turn

    async def close(self) -> None:
        """Send what is queued, wait for the batches in flight, then close the connections."""
        while self.sending or self.scheduled or self.reads or self.writes:
            if self.sending:
                await asyncio.gather(*self.sending, return_exceptions=True)
            else:
                await asyncio.sleep(0)  # the batch scheduled for the end of this turn goes
                if not (self.sending or self.scheduled) and (self.reads or self.writes):
                    self._send()
        await self.client.aclose()

    async def get(self, key: str, counted: bool = True) -> tuple[bool, object]:
        """(True, value) when an instance wrote key's value and its TTL has not passed, else (False, None): a Redis
        that fails or holds no JSON included."""
        if self.clock() < self.paused_until:
            self._count("misses", counted)
            return False, None
        try:
            raw = await self._queued(self.reads, key)
            value = None if raw is None else json.loads(raw)
        except (redis.RedisError, OSError, ValueError) as error:
            self._failed(error)
            self._count("misses", counted)
            return False, None
        self._count("hits" if raw is not None else "misses", counted)
        return raw is not None, value

    async def put(self, key: str, value) -> None:
        """Keep key's value (JSON: dicts, lists, strings, numbers, None) for the TTL."""
        if self.clock() < self.paused_until:
            return
        try:
            await self._queued(self.writes, key, dumps(value))
        except (redis.RedisError, OSError) as error:
            self._failed(error)

    def keep(self, key: str, value) -> None:
        """put, in the next batch, with nobody waiting for it: a failed batch is counted and said once, as a put's."""
        if self.clock() < self.paused_until:
            return
        self._queued(self.writes, key, dumps(value), wait=False)

    def _count(self, outcome: str, counted: bool) -> None:
        if counted:
            self.stats[outcome] += 1

    def _queued(self, queue: dict, key: str, value=None, wait: bool = True) -> asyncio.Future | None:
        """A future for key's read or write (None unless `wait`), sent in the next batch: at the end of this loop turn
        when no batch is out, else as soon as the one out comes back."""
        loop = asyncio.get_running_loop()
        future = loop.create_future() if wait else None
        entry = queue.get(key)
        if entry is None:
            queue[key] = [value, [future] if wait else []]
        else:
            entry[0] = value  # a key written twice before its batch goes: its last value
            if wait:
                entry[1].append(future)
        if not self.sending and not self.scheduled:
            self.scheduled = True
            loop.call_soon(self._send)
        return future

    def _send(self) -> None:
        self.scheduled = False
        if self.sending or not (self.reads or self.writes):
            return
        reads, writes = self.reads, self.writes
        self.reads, self.writes = {}, {}
        task = asyncio.ensure_future(self._answer(reads, writes))
        self.sending.add(task)
        task.add_done_callback(self._sent)

    def _sent(self, task: asyncio.Task) -> None:
        self.sending.discard(task)
        if self.reads or self.writes:  # asked while the batch was out: they go now, together
            self._send()

    async def _answer(self, reads: dict, writes: dict) -> None:
        """Each waiting future gets its key's answer, or the batch's error (cancelled when the batch is)."""
        try:
            answers = await self._batch(list(reads), writes)
        except asyncio.CancelledError:
            for _, futures in (*reads.values(), *writes.values()):
                for future in futures:
                    future.cancel()
            raise
        except Exception as error:
            answers = [error] * (len(writes) + len(reads))
            if any(not futures for _, futures in writes.values()):
                self._failed(error)  # writes kept with nobody waiting: counted here, once for the batch
        for (_, futures), answer in zip((*writes.values(), *reads.values()), answers):
            for future in futures:
                if future.done():
                    continue  # its asker gave up
                if isinstance(answer, Exception):
                    future.set_exception(answer)
                else:
                    future.set_result(answer)

    async def _batch(self, keys: list, writes: dict) -> list:
        """One round trip: the writes' SETs, then one MGET of `keys` (reads see the writes before them); each write's
        answer, then each key's value."""
        if not writes:
            return await self.client.mget(keys)
        async with self.client.pipeline(transaction=False) as pipe:
            for key, (value, _) in writes.items():
                pipe.set(key, value, px=self.ttl_ms)
            if keys:
                pipe.mget(keys)
            answers = await pipe.execute()
        return answers[: len(writes)] + (answers[-1] if keys else [])

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
    """Host and port of a Redis URL, as a log may name it (no password).

    >>> _where("redis://:secret@cache.example:6380/0"), _where("redis://cache.example")
    ('cache.example:6380', 'cache.example:6379')
    """
    parts = urlsplit(url)
    return f"{parts.hostname}:{parts.port or 6379}" if parts.hostname else parts.path or "redis"
