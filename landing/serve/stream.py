"""The event-stream consumer: inputs read from a Redis Stream through a consumer group, each answer written to an
output stream and acknowledged in one script (docs/service.md "Event streams").

Every input entry gets exactly one output entry, and is processed at least once: a consumer killed after answering
but before writing is answered again by the consumer that claims its entry, and the write script, which writes only
while the entry is still pending for the consumer running it, makes a second output impossible once one was written.
"""

import asyncio
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

import redis.asyncio
from redis.backoff import NoBackoff
from redis.exceptions import RedisError, ResponseError
from redis.retry import Retry

from landing.core.matching.events import event_line
from landing.core.matching.input_lines import dumps
from landing.core.matching.stream_entries import error, read_entry, result_version
from landing.serve.lost_group import answered_key, start_of

# Write the result and acknowledge the input, only while the input is still pending for this consumer: an entry
# claimed by another consumer (this one was thought dead) or already acknowledged gets no second output, nor does one
# answered before its group was lost (KEYS[3], landing.serve.lost_group).
_WRITE = """
if #redis.call('XPENDING', KEYS[1], ARGV[1], ARGV[3], ARGV[3], 1, ARGV[2]) == 0 then
  return false
end
if redis.call('SISMEMBER', KEYS[3], ARGV[3]) == 1 then
  redis.call('XACK', KEYS[1], ARGV[1], ARGV[3])
  return false
end
local fields = {'input', ARGV[3], 'result', ARGV[4]}
if ARGV[5] ~= '' then
  fields[5] = 'version'
  fields[6] = ARGV[5]
end
local id
if tonumber(ARGV[6]) > 0 then
  id = redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[6], '*', unpack(fields))
else
  id = redis.call('XADD', KEYS[2], '*', unpack(fields))
end
redis.call('XACK', KEYS[1], ARGV[1], ARGV[3])
return id
"""
# Reset the idle time of the entries this consumer is still answering, so that only a dead consumer's are claimed
# (an answer may take longer than the claim time); an entry another consumer claimed meanwhile stays with it.
_RENEW = """
local renewed = 0
for i = 3, #ARGV do
  if #redis.call('XPENDING', KEYS[1], ARGV[1], ARGV[i], ARGV[i], 1, ARGV[2]) > 0 then
    redis.call('XCLAIM', KEYS[1], ARGV[1], ARGV[2], 0, ARGV[i], 'JUSTID')
    renewed = renewed + 1
  end
end
return renewed
"""
BACKOFF_FIRST, BACKOFF_MAX = 0.1, 5.0  # seconds between tries while Redis is away
WRITE_BATCH = 500  # answers written in one round trip at most
MAX_DELIVERIES = 5  # deliveries of one entry (a read, then claims) before it gets an error result instead
WARN_EVERY = 60.0  # seconds between two warnings about malformed entries (each one still gets its error result)
# A consumer idle this long with no entry pending is forgotten when another joins: default names are HOSTNAME-PID,
# so each restart adds one, and a group kept for months would list every process that ever ran. A live consumer
# reads every second (block_ms); one forgotten by mistake is made again by its next read, losing nothing.
FORGET_IDLE_MS = 3_600_000


@dataclass(frozen=True)
class Exhausted:
    """A claimed entry delivered more than MAX_DELIVERIES times."""

    deliveries: int


class StreamConsumer:
    """One member of a consumer group: answers the entries it reads or claims, `concurrency` at a time, until stopped.

    `answer(text, fetch)` returns an input's result (JSON-ready); in the service it is `Matcher.match`."""

    def __init__(
        self,
        client,
        stream_in: str,
        stream_out: str,
        group: str,
        consumer: str,
        answer: Callable[[str, str], Awaitable[dict]],
        *,
        batch: int,
        claim_idle_ms: int,
        concurrency: int,
        maxlen: int,
        logger,
        max_input: int = 100_000,
        block_ms: int = 1000,
        unanswered: tuple[type[Exception], ...] = (),
        forget_idle_ms: int = FORGET_IDLE_MS,
    ):
        self.client, self.stream_in, self.stream_out = client, stream_in, stream_out
        self.group, self.consumer, self.answer, self.logger = group, consumer, answer, logger
        self.batch, self.claim_idle_ms, self.concurrency = batch, claim_idle_ms, concurrency
        self.maxlen, self.max_input, self.block_ms = maxlen, max_input, block_ms
        self.forget_idle_ms = forget_idle_ms
        self.unanswered = unanswered  # what answer raises when it cannot answer now (closing): the entry stays pending
        self._write, self._renew = client.register_script(_WRITE), client.register_script(_RENEW)
        self.held: dict[str, asyncio.Task] = {}  # entry id -> its answer, until written
        self._outbox: list = []  # (script keys and args, future of its outcome): answers the writer sends in one trip
        self._outbox_filled = asyncio.Event()
        self._cursor, self._next_scan = "0-0", 0.0  # XAUTOCLAIM's place in the pending entries, and the next scan
        self._away_since: float | None = None  # when Redis stopped answering, during an outage
        self._warned_at = -WARN_EVERY
        # read, claimed, answered, malformed, failed, written, not_written, unwritten, left, renewed,
        # outages, exhausted, forgotten
        self.stats: Counter = Counter()

    async def run(self, stopping: asyncio.Event) -> None:
        """Answer entries until `stopping` is set, then finish the ones held and return; never exits on an outage."""
        renewing, writing = asyncio.create_task(self._renewing()), asyncio.create_task(self._writing(stopping))
        try:
            if await self._retried(self._join, stopping) is None:
                return
            while not stopping.is_set():
                room = self.concurrency - len(self.held)
                if room <= 0:
                    await asyncio.wait(self.held.values(), return_when=asyncio.FIRST_COMPLETED)
                    continue
                entries = await self._retried(self._take, stopping, room)
                for entry_id, fields in entries or ():
                    if entry_id not in self.held:  # a claim of our own entry in progress: one answer is enough
                        self.held[entry_id] = asyncio.create_task(self._entry(entry_id, fields))
            if self.held:
                await asyncio.wait(self.held.values())
        finally:
            renewing.cancel()
            writing.cancel()
            for task in self.held.values():  # only when run itself was cancelled: a drain leaves none
                task.cancel()
        left = self.stats["unwritten"]
        if left:
            self.logger.warning(
                "%d answers were not written (Redis unreachable at the stop): their entries stay pending, and another "
                "consumer claims them after landing.tuning.STREAM_CLAIM_SECONDS",
                left,
            )

    async def write(self, entry_id: str, result: dict) -> bool:
        """Write entry_id's result to the output stream and acknowledge it, in one script; False (nothing written)
        when the entry is no longer pending for this consumer."""
        keys, args = self._script(entry_id, result)
        return await self._write(keys=keys, args=args) is not None

    async def _writing(self, stopping: asyncio.Event) -> None:
        """Send the answers ready, many scripts in one round trip (one connection, however many entries are held),
        and tell each its outcome: True written, False not (no longer pending here), None (Redis away at the stop)."""
        while True:
            await self._outbox_filled.wait()
            self._outbox_filled.clear()
            while self._outbox:
                batch, self._outbox = self._outbox[:WRITE_BATCH], self._outbox[WRITE_BATCH:]
                try:
                    outcomes = await self._retried(self._send, stopping, [script for script, _ in batch])
                except Exception as failure:  # not Redis's: each entry's task fails with it, the writer goes on
                    outcomes = [failure] * len(batch)
                for (_, done), outcome in zip(batch, outcomes or [None] * len(batch), strict=True):
                    if done.done():
                        continue
                    if isinstance(outcome, Exception):
                        done.set_exception(outcome)
                    else:
                        done.set_result(outcome)

    async def _send(self, scripts: list) -> list[bool]:
        pipe = self.client.pipeline(transaction=False)
        for keys, args in scripts:
            await self._write(keys=keys, args=args, client=pipe)
        return [found is not None for found in await pipe.execute()]

    def _script(self, entry_id: str, result: dict) -> tuple[list, list]:
        """The write script's keys and arguments for entry_id's result."""
        try:
            payload = dumps(result)  # bytes that always encode: a lone surrogate would fail the whole batch's trip
        except (TypeError, ValueError):  # never pending for ever: the entry gets an error result instead
            self.logger.exception("entry %s of %s: the answer is not JSON", entry_id, self.stream_in)
            result = error("the matcher's answer to this input is not JSON", 500)
            payload = dumps(result)
        version = result_version(result) or ""
        keys = [self.stream_in, self.stream_out, answered_key(self.stream_in, self.group)]
        return keys, [self.group, self.consumer, entry_id, payload, version, self.maxlen]

    async def _join(self) -> bool:
        """Create the group when it is missing: reading the stream from its start, so entries written before it are
        answered too, or, once the output names answered inputs, from the last answered (landing.serve.lost_group)."""
        start = await start_of(self.client, self.stream_in, self.stream_out, self.group, self.logger)
        try:
            if start is not None:
                await self.client.xgroup_create(self.stream_in, self.group, id=start, mkstream=True)
        except ResponseError as refused:
            if not str(refused).startswith("BUSYGROUP"):
                raise
        for found in await self.client.xinfo_consumers(self.stream_in, self.group):
            name = _text(found["name"])
            if name != self.consumer and not found["pending"] and found["idle"] > self.forget_idle_ms:
                await self.client.xgroup_delconsumer(self.stream_in, self.group, name)
                self.stats["forgotten"] += 1
        return True

    async def _take(self, room: int) -> list:
        """Up to `room` entries: a dead consumer's (pending longer than the claim time) first, else new ones."""
        now = time.monotonic()
        if now >= self._next_scan:
            cursor, claimed, *_ = await self.client.xautoclaim(
                self.stream_in, self.group, self.consumer, self.claim_idle_ms, self._cursor, count=room
            )
            self._cursor = _text(cursor)
            if self._cursor == "0-0":  # the scan went round: the next is due when the newest could be idle enough
                self._next_scan = now + self.claim_idle_ms / 2000
            claimed = [(_text(entry_id), fields) for entry_id, fields in claimed if fields is not None]
            claimed = [(entry_id, fields) for entry_id, fields in claimed if entry_id not in self.held]
            if claimed:
                self.stats["claimed"] += len(claimed)
                self.logger.info("claimed %d entries pending longer than %d ms", len(claimed), self.claim_idle_ms)
                return await self._unless_exhausted(claimed)
        response = await self.client.xreadgroup(
            self.group, self.consumer, {self.stream_in: ">"}, count=min(self.batch, room), block=self.block_ms
        )
        streams = response.items() if isinstance(response, dict) else response or ()
        entries = [(_text(entry_id), fields) for _, read in streams for entry_id, fields in _flat(read)]
        self.stats["read"] += len(entries)
        return entries

    async def _unless_exhausted(self, claimed: list) -> list:
        """The claimed entries, those delivered more than MAX_DELIVERIES times marked: each consumer that took them
        died before answering (an input that kills its consumer), so they get an error result instead of another."""
        pipe = self.client.pipeline(transaction=False)
        for entry_id, _ in claimed:
            pipe.xpending_range(self.stream_in, self.group, entry_id, entry_id, 1)
        counts = [found[0]["times_delivered"] if found else 0 for found in await pipe.execute()]
        return [
            (entry_id, Exhausted(count) if count > MAX_DELIVERIES else fields)
            for (entry_id, fields), count in zip(claimed, counts, strict=True)
        ]

    async def _entry(self, entry_id: str, fields: dict) -> None:
        """Answer one entry and write its result; an entry that asks nothing answerable gets an error result."""
        try:
            try:
                result = await self._answered(entry_id, fields)
            except self.unanswered:
                self.stats["left"] += 1  # claimed by another consumer after tuning.STREAM_CLAIM_SECONDS
                return
            done = asyncio.get_running_loop().create_future()
            self._outbox.append((self._script(entry_id, result), done))
            self._outbox_filled.set()
            written = await done
            if written is None:
                self.stats["unwritten"] += 1
            elif written:
                self.stats["written"] += 1
            else:
                self.stats["not_written"] += 1
                self.logger.debug("entry %s was claimed by another consumer: its output is that one's", entry_id)
        finally:
            self.held.pop(entry_id, None)

    async def _answered(self, entry_id: str, fields) -> dict:
        if isinstance(fields, Exhausted):
            self.stats["exhausted"] += 1
            self.logger.error(
                "entry %s of %s: delivered %d times, never answered: given up",
                entry_id,
                self.stream_in,
                fields.deliveries,
            )
            return error(f"given up: delivered {fields.deliveries} times, and no consumer lived to answer it", 500)
        read = read_entry(fields, self.max_input)
        if isinstance(read, dict):
            self.stats["malformed"] += 1
            now = time.monotonic()
            if now - self._warned_at >= WARN_EVERY:
                self._warned_at = now
                self.logger.warning(
                    "entry %s of %s: %s (it gets an error result; %d malformed so far)",
                    entry_id,
                    self.stream_in,
                    read["error"],
                    self.stats["malformed"],
                )
            return read
        try:
            result = await self.answer(read.text, read.fetch)
        except self.unanswered:
            raise
        except Exception:  # the consumer outlives a failing answer; the entry gets an error result, not a retry loop
            self.stats["failed"] += 1
            self.logger.exception("entry %s of %s: the answer failed", entry_id, self.stream_in)
            return error("the matcher failed on this input", 500)
        self.stats["answered"] += 1
        return event_line(result, read.subj) if read.format == "event" else result

    async def _renewing(self) -> None:
        """Keep the entries in progress from being claimed, while this consumer lives."""
        while True:
            await asyncio.sleep(self.claim_idle_ms / 3000)
            held = list(self.held)
            if not held:
                continue
            try:
                self.stats["renewed"] += await self._renew(
                    keys=[self.stream_in], args=[self.group, self.consumer, *held]
                )
            except RedisError:
                pass  # an outage: the main loop reports it; an entry claimed meanwhile is answered twice, written once

    async def _retried(self, call, stopping: asyncio.Event, *args):
        """call(*args)'s value once Redis answers it, waiting out an outage with a backoff; None when `stopping` is
        set while Redis is away. A group that vanished (Redis restarted empty) is created again."""
        delay, failures = BACKOFF_FIRST, 0
        while True:
            try:
                value = await call(*args)
            except ResponseError as refused:
                if "NOGROUP" in str(refused):  # said first, or after the command it failed in a pipeline
                    self.logger.warning("group %s of %s is gone: creating it again", self.group, self.stream_in)
                    await self._retried(self._join, stopping)
                    continue
                failure = refused
            except RedisError as lost:  # connection refused or lost, timeouts, Redis loading its data...
                failure = lost
            else:
                if self._away_since is not None:
                    self.logger.warning("Redis answers again, after %.1f s", time.monotonic() - self._away_since)
                    self._away_since = None
                return value
            failures += 1
            if failures == 1 and not isinstance(failure, ResponseError):
                # Pooled connections a Redis restart broke: drop the idle ones, and the next try opens a new one.
                await self.client.connection_pool.disconnect(inuse_connections=False)
                continue
            self._away(failure)
            try:
                await asyncio.wait_for(stopping.wait(), delay)
                return None
            except TimeoutError:
                delay = min(2 * delay, BACKOFF_MAX)

    def _away(self, failure: Exception) -> None:
        if self._away_since is None:
            self._away_since = time.monotonic()
            self.stats["outages"] += 1
            self.logger.warning(
                "Redis does not answer the stream consumer (%s: %s): retrying until it does",
                type(failure).__name__,
                failure,
            )


def client_for(url: str) -> redis.asyncio.Redis:
    """The consumer's Redis client: one immediate retry, so a pooled connection a restart broke reconnects; a longer
    outage reaches the consumer, which waits it out with its own backoff and says so."""
    return redis.asyncio.Redis.from_url(url, retry=Retry(NoBackoff(), 1))


def _flat(read) -> list:
    """A stream's entries as (id, fields) pairs, whichever reply shape the client gave."""
    return [(entry[0], entry[1]) for entry in read or ()]


def _text(value) -> str:
    return value.decode() if isinstance(value, bytes) else value
