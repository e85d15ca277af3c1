"""One crawl frontier shared by N crawler processes through Redis, where a worker's death loses nothing.

scrapy-redis pops a request out of Redis for good, so a worker killed with kill -9 loses everything it had
taken. Here a pop is a *lease* instead: the request stays in Redis, leased to one worker until an expiry
that the worker pushes forward while it works (heartbeat), and is deleted only when the worker *acks* it
once the unit's work is stored. Any worker reaps expired leases back into the queue, so the work of a dead
worker comes back to the others after at most LANDING_LEASE_SECONDS. Delivery is at-least-once: a unit
can be done twice (a lost lease), so what stores its results must be idempotent (ids derived from the DOI).

Only requests whose meta has ``landing_shared`` go to Redis: the first request of each DOI, keyed by its visit
id (a second push of a key still queued or leased is dropped: the frontier is its own dupefilter), or True
for a fresh numbered id. A popped one carries ``landing_lease`` = (id, token) in its meta, and every
follow-up of it (hops, retries, a browser visit) carries that on and stays in a local memory queue, as do
robots.txt and API requests. The local part behaves like Scrapy's default scheduler (its memory priority
queue classes and DUPEFILTER_CLASS); shared requests and leased follow-ups skip the dupefilter: DOIs are
unique per run, hops are dont_filter, and a unit served twice must run again.

Settings: LANDING_FRONTIER_REDIS (redis:// URL, passed to scrapy-redis as REDIS_URL; REDIS_PARAMS,
SCHEDULER_QUEUE_KEY and SCHEDULER_SERIALIZER are honoured) and LANDING_LEASE_SECONDS (a lease covers the
time a request waits in the downloader too). SCHEDULER_PERSIST is always on and
SCHEDULER_FLUSH_ON_START always off: one worker closing or starting must never delete the others' work.

Redis keys, with <q> = SCHEDULER_QUEUE_KEY % spider (default ``<spider name>:requests``):
    <q>          ZSET pending ids, score -priority (equal priorities come out in id order: plan order for visits)
    <q>:seq      counter giving each push a fresh id, so equal payloads never collapse into one member
    <q>:data     HASH id -> serialized request (scrapy-redis's pickle by default: keep Redis private)
    <q>:prio     HASH id -> score, to put a reaped lease back where it was
    <q>:leased   ZSET leased ids, score = expiry in Redis TIME seconds (one clock for all machines)
    <q>:owner    HASH id -> token of the worker that last leased it (fencing for late acks)
    <q>:dead     HASH id -> payloads no worker could deserialize, kept for a person to look at
    <q>:leader, <q>:run   which worker leads the run (landing.sampler.shared_run)
Every operation is one round trip (a Lua script or a pipeline). Needs one Redis >= 5 (scripts calling
TIME), not Redis Cluster.
"""

import asyncio
import importlib
import logging
import time
import uuid

from scrapy.pqueues import ScrapyPriorityQueue
from scrapy.settings import Settings
from scrapy.utils.asyncio import AsyncioLoopingCall
from scrapy.utils.misc import build_from_crawler, load_object
from scrapy_redis import connection, defaults
from scrapy_redis.queue import PriorityQueue
from scrapy_redis.scheduler import Scheduler as RedisScheduler

from landing.config import number

logger = logging.getLogger(__name__)

SHARED, LEASE = "landing_shared", "landing_lease"

# Every script reads the clock as Redis TIME plus ARGV[1], an offset that is 0 except in tests.
_NOW = "local t = redis.call('TIME') local now = t[1] + t[2] / 1e6 + tonumber(ARGV[1])\n"

# A request with a key of its own (ARGV[4], a visit id) is queued once: while that id is pending or leased, a
# second push of it is a no-op (returns false). Without a key (''), every push gets a fresh numbered id.
# KEYS: pending seq data prio; ARGV: offset payload score key
_PUSH = """
local id = ARGV[4]
if id == '' then
  id = string.format('%015d', redis.call('INCR', KEYS[2]))
elseif redis.call('HEXISTS', KEYS[3], id) == 1 then
  return false
end
redis.call('HSET', KEYS[3], id, ARGV[2])
redis.call('HSET', KEYS[4], id, ARGV[3])
redis.call('ZADD', KEYS[1], ARGV[3], id)
return id
"""

# KEYS: pending data prio leased owner; ARGV: offset ttl token
_POP = (
    _NOW
    + """
while true do
  local id = redis.call('ZRANGE', KEYS[1], 0, 0)[1]
  if not id then return false end
  redis.call('ZREM', KEYS[1], id)
  local payload = redis.call('HGET', KEYS[2], id)
  if payload then
    redis.call('ZADD', KEYS[4], now + tonumber(ARGV[2]), id)
    redis.call('HSET', KEYS[5], id, ARGV[3])
    return {id, payload}
  end
  redis.call('HDEL', KEYS[3], id)  -- an id without a payload: drop it and take the next
end
"""
)

# The unit is done: forget it wherever it is (leased, or already reaped back to pending), but only for the
# worker that leased it last, so a late ack cannot delete work another worker holds now. ARGV[4] = '1'
# buries the payload in <q>:dead instead of deleting it.
# KEYS: pending data prio leased owner dead; ARGV: offset id token bury
_ACK = """
if redis.call('HGET', KEYS[5], ARGV[2]) ~= ARGV[3] then return 0 end
if ARGV[4] == '1' then redis.call('HSET', KEYS[6], ARGV[2], redis.call('HGET', KEYS[2], ARGV[2])) end
redis.call('ZREM', KEYS[4], ARGV[2])
redis.call('ZREM', KEYS[1], ARGV[2])
redis.call('HDEL', KEYS[2], ARGV[2])
redis.call('HDEL', KEYS[3], ARGV[2])
redis.call('HDEL', KEYS[5], ARGV[2])
return 1
"""

# Heartbeat: returns the ids still leased to the token, their expiry moved to now + ttl.
# KEYS: leased owner; ARGV: offset ttl token id...
_EXTEND = (
    _NOW
    + """
local held = {}
for i = 4, #ARGV do
  if redis.call('HGET', KEYS[2], ARGV[i]) == ARGV[3] and redis.call('ZSCORE', KEYS[1], ARGV[i]) then
    redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[i])
    held[#held + 1] = ARGV[i]
  end
end
return held
"""
)

# Moves leases back to pending with their saved score: those expired (ARGV[3] = '') or, on a worker's
# close, those still held by the token ARGV[3] among ARGV[4...]. Returns how many moved.
# KEYS: pending prio leased owner; ARGV: offset limit token id...
_REQUEUE = (
    _NOW
    + """
local ids = {}
if ARGV[3] == '' then
  ids = redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', now, 'LIMIT', 0, tonumber(ARGV[2]))
else
  for i = 4, #ARGV do
    if redis.call('HGET', KEYS[4], ARGV[i]) == ARGV[3] and redis.call('ZSCORE', KEYS[3], ARGV[i]) then
      ids[#ids + 1] = ARGV[i]
    end
  end
end
for _, id in ipairs(ids) do
  redis.call('ZREM', KEYS[3], id)
  redis.call('ZADD', KEYS[1], redis.call('HGET', KEYS[2], id) or 0, id)
end
return #ids
"""
)


class LeasedQueue(PriorityQueue):
    """scrapy-redis's priority queue where pop leases a request until ack, instead of removing it."""

    ttl = 120.0  # lease length in seconds; the scheduler sets it from LANDING_LEASE_SECONDS
    skew = 0.0  # seconds added to Redis TIME: tests move the lease clock with it instead of sleeping
    reap_limit = 1000  # leases reaped per call, to keep one script short

    def __init__(self, server, spider, key, serializer=None):
        super().__init__(server, spider, key, serializer)
        self.token = uuid.uuid4().hex  # this worker's identity in <q>:owner
        self.keys = {name: f"{self.key}:{name}" for name in ("seq", "data", "prio", "leased", "owner", "dead")}
        self.keys["pending"] = self.key
        scripts = {"push": _PUSH, "pop": _POP, "ack": _ACK, "extend": _EXTEND, "requeue": _REQUEUE}
        self._scripts = {name: server.register_script(source) for name, source in scripts.items()}

    def _run(self, script, keys, *args):
        return self._scripts[script](keys=[self.keys[k] for k in keys.split()], args=[self.skew, *args])

    def push(self, request, key=""):
        """Queue the request under `key` (a no-op returning None while that key is queued or leased) or, without
        one, under a fresh id; return the id."""
        return self.push_many([(request, key)])[0]

    def push_many(self, requests):
        """push() for each (request, key), in one round trip to Redis; the ids, None for each one dropped."""
        pipe = self.server.pipeline(transaction=False)
        keys = [self.keys[k] for k in ("pending", "seq", "data", "prio")]
        for request, key in requests:
            self._scripts["push"](
                keys=keys, args=[self.skew, self._encode_request(request), -request.priority, key], client=pipe
            )
        return [pushed.decode() if pushed else None for pushed in pipe.execute()]

    def lease(self):
        """Lease the best pending request to this worker: (id, payload), or None when pending is empty."""
        found = self._run("pop", "pending data prio leased owner", self.ttl, self.token)
        return (found[0].decode(), found[1]) if found else None

    def pop(self, timeout=0):
        """Lease the best pending request and return it with (id, token) in meta["landing_lease"], or None."""
        found = self.lease()
        if found is None:
            return None
        lease_id, payload = found
        try:
            request = self._decode_request(payload)
        except Exception:
            # A payload this code cannot rebuild (a renamed callback, a worker running other code) would
            # come back after every lease and keep all workers from finishing: bury it in <q>:dead, loudly.
            logger.exception("moved undecodable shared request %s to %s", lease_id, self.keys["dead"])
            self.ack(lease_id, self.token, bury=True)
            return None
        request.meta[LEASE] = (lease_id, self.token)
        return request

    def ack(self, lease_id, token, bury=False):
        """Delete a finished unit (or move it to <q>:dead) if `token` leased it last; return whether it did."""
        return bool(self._run("ack", "pending data prio leased owner dead", lease_id, token, int(bury)))

    def ack_many(self, leases):
        """ack() for many (id, token) pairs in one round trip; returns whether each was deleted."""
        pipe = self.server.pipeline(transaction=False)
        keys = [self.keys[k] for k in "pending data prio leased owner dead".split()]
        for lease_id, token in leases:
            self._scripts["ack"](keys=keys, args=[self.skew, lease_id, token, 0], client=pipe)
        return [bool(done) for done in pipe.execute()]

    def extend(self, lease_ids, token):
        """Push the expiry of the leases still held by `token` to now + ttl; return those ids."""
        if not lease_ids:
            return []
        held = self._run("extend", "leased owner", self.ttl, token, *lease_ids)
        return [lease_id.decode() for lease_id in held]

    def reap(self):
        """Put expired leases back into pending; return how many."""
        return self._run("requeue", "pending prio leased owner", self.reap_limit, "")

    def release(self, lease_ids, token):
        """Put the leases still held by `token` back into pending at once; return how many."""
        if not lease_ids:
            return 0
        return self._run("requeue", "pending prio leased owner", 0, token, *lease_ids)

    def lengths(self):
        """(pending, leased) counts."""
        pipe = self.server.pipeline(transaction=False)
        pipe.zcard(self.keys["pending"]).zcard(self.keys["leased"])
        return tuple(pipe.execute())

    def clear(self):
        self.server.delete(*self.keys.values())


class Scheduler(RedisScheduler):
    """Shared requests go through a LeasedQueue in Redis; all others stay in a local memory queue."""

    reap_every = 5.0  # seconds between reaps; a dead worker's work waits up to LANDING_LEASE_SECONDS + this
    clock = staticmethod(time.monotonic)  # when reaps and heartbeats are due (tests replace it)

    @classmethod
    def from_crawler(cls, crawler):
        url = crawler.settings.get("LANDING_FRONTIER_REDIS")
        if not url:
            raise ValueError(
                "landing.sampler.frontier_redis.Scheduler needs LANDING_FRONTIER_REDIS=redis://host:port/db"
            )
        settings = Settings({**crawler.settings.copy_to_dict(), "REDIS_URL": url})  # crawler's is frozen
        # Built here rather than by RedisScheduler.from_settings, which would instantiate Scrapy 2.19's
        # DUPEFILTER_CLASS through a from_settings method that class no longer has.
        server = connection.get_redis_from_settings(settings)
        server.ping()
        serializer = settings.get("SCHEDULER_SERIALIZER")
        scheduler = cls(
            server,
            persist=True,
            flush_on_start=False,
            queue_key=settings.get("SCHEDULER_QUEUE_KEY") or defaults.SCHEDULER_QUEUE_KEY,
            serializer=importlib.import_module(serializer) if isinstance(serializer, str) else serializer,
            dupefilter=build_from_crawler(load_object(settings["DUPEFILTER_CLASS"]), crawler),
        )
        scheduler.crawler, scheduler.stats = crawler, crawler.stats
        scheduler.ttl = number(crawler.settings, "LANDING_LEASE_SECONDS")
        crawler.landing_redis_scheduler = scheduler  # how ack(crawler, meta) finds it
        return scheduler

    def open(self, spider):
        self.spider = spider
        self.queue = LeasedQueue(self.server, spider, self.queue_key % {"spider": spider.name}, self.serializer)
        self.queue.ttl = self.ttl
        pending, leased = self.queue.lengths()
        if pending or leased:
            logger.info("joining a shared frontier: %d requests pending, %d leased", pending, leased)
        settings = self.crawler.settings
        start_queue = settings["SCHEDULER_START_MEMORY_QUEUE"]
        self.local = ScrapyPriorityQueue.from_crawler(
            self.crawler,
            load_object(settings["SCHEDULER_MEMORY_QUEUE"]),
            key="",
            start_queue_cls=load_object(start_queue) if start_queue else None,
        )
        self.held = set()  # ids of the leases this worker holds, for heartbeats and close()
        now = self.clock()
        self._reap_at, self._heartbeat_at = now, now + self.ttl / 3
        self._timer = None
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            pass  # no event loop (unit tests): next_request still runs tick()
        else:
            # While every download slot is busy the engine calls neither next_request nor
            # has_pending_requests, so heartbeats need their own timer or long downloads lose their leases.
            self._timer = AsyncioLoopingCall(self.tick)
            self._timer.start(min(1.0, self.ttl / 6), now=False)
        return self.df.open()

    def close(self, reason):
        """Hand this worker's leases back at once; unlike scrapy-redis, never flush the shared queue."""
        if self._timer is not None:
            self._timer.stop()
        released = self.queue.release(sorted(self.held), self.queue.token)
        if released:
            logger.info("put %d held leases back into the shared frontier", released)
        self.held.clear()
        return self.df.close(reason)

    def flush(self):
        """Delete the whole shared frontier, every worker's work: for an operator, never called on close."""
        self.queue.clear()

    def enqueue_request(self, request):
        if request.meta.get(SHARED) and LEASE not in request.meta:
            return self.share([request]) == 1
        if LEASE not in request.meta and not request.dont_filter and self.df.request_seen(request):
            return False
        self.local.push(request)
        self._count("scheduler/enqueued/memory")
        return True

    def share(self, requests) -> int:
        """Push requests for the shared frontier (meta SHARED) in one round trip; how many were queued.

        A string SHARED is the unit's own key (a visit id): the same unit pushed again while queued is dropped."""
        ids = self.queue.push_many([(r, r.meta[SHARED] if isinstance(r.meta[SHARED], str) else "") for r in requests])
        queued = sum(1 for i in ids if i is not None)
        if queued:
            self._count("scheduler/enqueued/redis", queued)
        if len(ids) - queued:
            self._count("scheduler/enqueued/redis_duplicate", len(ids) - queued)
        return queued

    def next_request(self):
        self.tick()
        request = self.local.pop()
        if request is not None:
            self._count("scheduler/dequeued/memory")
            return request
        request = self.queue.pop()
        if request is not None:
            self.held.add(request.meta[LEASE][0])
            self._count("scheduler/dequeued/redis")
        return request

    def has_pending_requests(self):
        # Leases held by other workers count: if one of them dies its work comes back here.
        return len(self.local) > 0 or sum(self.queue.lengths()) > 0

    def __len__(self):
        return len(self.local) + sum(self.queue.lengths())

    def ack(self, meta):
        """Call when a leased unit's work is stored: deletes it from Redis. Returns whether it did."""
        lease = meta.get(LEASE)
        if not lease:
            return False
        lease_id, token = lease
        if token == self.queue.token:
            self.held.discard(lease_id)
        done = self.queue.ack(lease_id, token)
        self._count("landing/frontier_redis/acked" if done else "landing/frontier_redis/ack_stale")
        return done

    def ack_many(self, leases):
        """ack() for many leases (id, token) at once, in one round trip; returns how many were deleted."""
        if not leases:
            return 0
        for lease_id, token in leases:
            if token == self.queue.token:
                self.held.discard(lease_id)
        done = sum(self.queue.ack_many(leases))
        self._count("landing/frontier_redis/acked", done)
        if done < len(leases):
            self._count("landing/frontier_redis/ack_stale", len(leases) - done)
        return done

    def tick(self):
        """Reap expired leases and heartbeat held ones, each when due; errors are logged, not raised."""
        now = self.clock()
        try:
            if now >= self._reap_at:
                self._reap_at = now + self.reap_every
                reaped = self.queue.reap()
                if reaped:
                    logger.info("re-queued %d expired leases", reaped)
                    self._count("landing/frontier_redis/reaped", reaped)
            if now >= self._heartbeat_at and self.held:
                self._heartbeat_at = now + self.ttl / 3
                held = set(self.queue.extend(sorted(self.held), self.queue.token))
                if self.held - held:
                    logger.warning("lost %d leases (expired and reaped): they may be done twice", len(self.held - held))
                self.held = held
        except Exception:
            # A Redis hiccup must not stop the looping call for good; the next tick tries again.
            logger.exception("shared frontier upkeep failed")

    def _count(self, key, n=1):
        if self.stats:
            self.stats.inc_value(key, n)


def scheduler_of(crawler):
    """The crawl's shared-frontier scheduler, or None when it runs Scrapy's own."""
    return getattr(crawler, "landing_redis_scheduler", None)


def ack(crawler, meta):
    """Ack the leased unit `meta` belongs to, if the crawl runs this scheduler; returns whether it did."""
    scheduler = scheduler_of(crawler)
    return scheduler is not None and scheduler.ack(meta)
