"""One crawl frontier shared by N crawler processes through Redis, where a worker's death loses nothing.

scrapy-redis pops a request out of Redis for good, so a worker killed with kill -9 loses everything it had
taken. Here a pop is a *lease* instead (landing.sampler.leased_queue): the request stays in Redis, leased to one
worker until an expiry that the worker pushes forward while it works (heartbeat), and is deleted only when the
worker *acks* it once the unit's work is stored. Any worker reaps expired leases back into the queue, so the work
of a dead worker comes back to the others after at most LANDING_LEASE_SECONDS. Delivery is at-least-once: a unit
can be done twice (a lost lease), so what stores its results must be idempotent (ids derived from the DOI). A worker
holds at most its share of the run's frontier (1/LANDING_WORKERS, landing.core.sampling.lease_shares): Scrapy's
engine asks for requests until CONCURRENT_REQUESTS wait in its downloader, which would lease a small run's every DOI
to the first worker.

Only requests whose meta has ``landing_shared`` go to Redis: the first request of each DOI, keyed by its visit
id (a second push of a key still queued or leased is dropped: the frontier is its own dupefilter), or True
for a fresh numbered id. A popped one carries ``landing_lease`` = (id, token) in its meta, and every
follow-up of it (hops, retries, a browser visit) carries that on and stays in a local memory queue, as do
robots.txt and API requests. The local part behaves like Scrapy's default scheduler (its memory priority
queue classes and DUPEFILTER_CLASS); shared requests and leased follow-ups skip the dupefilter: DOIs are
unique per run, hops are dont_filter, and a unit served twice must run again.

Settings: LANDING_FRONTIER_REDIS (redis:// URL; REDIS_PARAMS, SCHEDULER_QUEUE_KEY and SCHEDULER_SERIALIZER are
honoured, the serializer JSON by default) and LANDING_LEASE_SECONDS (a lease covers the time a request waits in
the downloader too). SCHEDULER_PERSIST is always on and SCHEDULER_FLUSH_ON_START always off: one worker closing
or starting must never delete the others' work. A call that cannot reach Redis (a restart, a failover) is
retried with backoff for about RETRY_SECONDS before the error reaches the crawl.

Redis keys: <ns> = SCHEDULER_QUEUE_KEY % spider (default ``<spider name>:requests``) and a digest of LANDING_DOCS
(and of LANDING_RUN when it names a run), so workers of different stores or named runs never mix
(landing.core.sampling.runs.shared_namespace); <q> = ``<ns>:run=<run id>``, the frontier of one run:
    <q>          ZSET pending ids, score -priority (equal priorities come out in id order: plan order for visits)
    <q>:seq      counter giving each push a fresh id, so equal payloads never collapse into one member
    <q>:data     HASH id -> serialized request (JSON, landing.core.sampling.payloads)
    <q>:prio     HASH id -> score, to put a reaped lease back where it was
    <q>:leased   ZSET leased ids, score = expiry in Redis TIME seconds (one clock for all machines)
    <q>:owner    HASH id -> token of the worker that last leased it (fencing for late acks)
    <q>:dead     HASH id -> payloads no worker could deserialize, kept for a person to look at
    <ns>:leader, <ns>:run   which worker leads, and on which run (landing.sampler.lead_election)
A worker serves a run's frontier once it knows the run (join): the leader once it opened it, a follower once the
leader published it. Needs one Redis >= 5 (scripts calling TIME), not Redis Cluster.
"""

import asyncio
import importlib
import logging
import time

import redis
from redis.backoff import ExponentialBackoff
from redis.retry import Retry
from scrapy.pqueues import ScrapyPriorityQueue
from scrapy.utils.asyncio import AsyncioLoopingCall
from scrapy.utils.misc import build_from_crawler, load_object
from scrapy_redis import defaults
from scrapy_redis.scheduler import Scheduler as RedisScheduler

from landing import config
from landing.core.sampling.lease_shares import lease_room
from landing.core.sampling.runs import shared_namespace
from landing.sampler.leased_queue import LEASE, LeasedQueue

logger = logging.getLogger(__name__)

SHARED = "landing_shared"
__all__ = ["LEASE", "SHARED", "LeasedQueue", "Scheduler", "ack", "scheduler_of"]

# Backoff 0.05, 0.1, ... doubling to 2 s: RETRIES retries wait about RETRY_SECONDS in all, longer than a restart.
RETRY_SECONDS, RETRIES = 30, 20
RETRIED = [redis.ConnectionError, redis.TimeoutError, redis.BusyLoadingError]


def client(settings, url: str) -> redis.Redis:
    """The Redis client of LANDING_FRONTIER_REDIS, with REDIS_PARAMS, retrying what a restart raises."""
    params = {**defaults.REDIS_PARAMS, **settings.getdict("REDIS_PARAMS")}
    params.pop("retry_on_timeout", None)  # redis-py: deprecated, TimeoutError is in RETRIED
    cls = load_object(params.pop("redis_cls", "redis.StrictRedis"))
    retry = Retry(ExponentialBackoff(cap=2.0, base=0.05), RETRIES)
    return cls.from_url(url, retry=retry, retry_on_error=RETRIED, **params)


def redis_warnings(server) -> list[str]:
    """What in the Redis's configuration can lose the frontier's keys (nothing when CONFIG is not allowed)."""
    try:
        config = server.config_get("maxmemory-policy") | server.config_get("appendonly") | server.config_get("save")
    except redis.ResponseError:  # a managed Redis may refuse CONFIG: its own console says how it is set
        return []
    found = []
    if config.get("maxmemory-policy", "noeviction") != "noeviction":
        found.append(
            f"the shared frontier's Redis has maxmemory-policy {config['maxmemory-policy']}: it may evict "
            "queued DOIs (they are queued again before the run finishes, visited late); set it to noeviction"
        )
    if config.get("appendonly") != "yes" and not config.get("save"):
        found.append(
            "the shared frontier's Redis keeps nothing on disk (appendonly no, no save): a restart loses the queued "
            "DOIs (they are queued again before the run finishes, visited late); set appendonly yes"
        )
    return found


class Scheduler(RedisScheduler):
    """Shared requests go through a LeasedQueue in Redis; all others stay in a local memory queue."""

    # Seconds between reaps (half a lease at most, for short leases): a dead worker's work waits up to
    # LANDING_LEASE_SECONDS + this.
    reap_every = 5.0
    clock = staticmethod(time.monotonic)  # when reaps and heartbeats are due (tests replace it)

    @classmethod
    def from_crawler(cls, crawler):
        settings, cfg = crawler.settings, config.of(crawler)
        url = cfg.frontier_redis
        if not url:
            raise ValueError(
                "landing.sampler.frontier_redis.Scheduler needs LANDING_FRONTIER_REDIS=redis://host:port/db"
            )
        # Read from the crawler's own settings, never a copy: a deep copy of every setting fails on objects
        # that cannot be copied (the browser's rules, with their caches).
        server = client(settings, url)
        server.ping()
        for warning in redis_warnings(server):
            logger.warning(warning)
        serializer = settings.get("SCHEDULER_SERIALIZER")
        # Built here rather than by RedisScheduler.from_settings, which would instantiate Scrapy 2.19's
        # DUPEFILTER_CLASS through a from_settings method that class no longer has.
        scheduler = cls(
            server,
            persist=True,
            flush_on_start=False,
            queue_key=settings.get("SCHEDULER_QUEUE_KEY") or defaults.SCHEDULER_QUEUE_KEY,
            serializer=importlib.import_module(serializer) if isinstance(serializer, str) else serializer,
            dupefilter=build_from_crawler(load_object(settings["DUPEFILTER_CLASS"]), crawler),
        )
        scheduler.crawler, scheduler.stats = crawler, crawler.stats
        scheduler.ttl, scheduler.docs, scheduler.wanted = cfg.lease_seconds, cfg.docs, cfg.run
        scheduler.workers = cfg.workers  # each leases at most its share of the run's frontier (lease_shares)
        crawler.landing_redis_scheduler = scheduler  # how ack(crawler, meta) finds it
        return scheduler

    def open(self, spider):
        self.spider = spider
        self.namespace = shared_namespace(self.queue_key % {"spider": spider.name}, self.docs, self.wanted)
        self.queue = None  # the run's frontier, once join() names the run
        settings = self.crawler.settings
        start_queue = settings["SCHEDULER_START_MEMORY_QUEUE"]
        self.local = ScrapyPriorityQueue.from_crawler(
            self.crawler,
            load_object(settings["SCHEDULER_MEMORY_QUEUE"]),
            key="",
            start_queue_cls=load_object(start_queue) if start_queue else None,
        )
        self.held = set()  # ids of the leases this worker holds, for heartbeats and close()
        self.held_orphaned = set()  # those among them whose keys Redis lost (said once)
        now = self.clock()
        self._reap_at = now
        self._heartbeat_at = now + self.ttl / 3
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

    def join(self, run_id: str) -> None:
        """Serve the frontier of run `run_id` from now on (the leader's, once it opened it; a follower's, once the
        leader published it)."""
        key = f"{self.namespace}:run={run_id}"
        if self.queue is not None and self.queue.key == key:
            return
        if self.queue is not None and self.held:
            self.queue.release(sorted(self.held), self.queue.token)
            self.held.clear()
        self.queue = LeasedQueue(self.server, self.spider, key, self.serializer)
        self.queue.ttl = self.ttl
        pending, leased = self.queue.lengths()
        if pending or leased:
            logger.info("joining a shared frontier: %d requests pending, %d leased", pending, leased)

    def lengths(self) -> tuple[int, int]:
        """(pending, leased) in the run's frontier; (0, 0) before the worker joined one."""
        return self.queue.lengths() if self.queue is not None else (0, 0)

    def holds(self, keys: list[str]) -> set[str]:
        """The keys (visit ids) among `keys` that the run's frontier holds, queued or leased by any worker, or that
        this worker holds leased (its key lost in Redis, its visit still under way)."""
        if self.queue is None or not keys:
            return set()
        found = self.server.hmget(self.queue.keys["data"], keys)
        return {key for key, payload in zip(keys, found) if payload is not None} | (set(keys) & self.held)

    def close(self, reason):
        """Hand this worker's leases back at once; unlike scrapy-redis, never flush the shared queue."""
        if self._timer is not None:
            self._timer.stop()
        if self.queue is not None and self.held:
            try:
                released = self.queue.release(sorted(self.held), self.queue.token)
            except redis.RedisError as error:  # they come back to the others when their leases expire
                logger.warning("cannot hand %d leases back to the shared frontier: %s", len(self.held), error)
            else:
                if released:
                    logger.info("put %d held leases back into the shared frontier", released)
        self.held.clear()
        return self.df.close(reason)

    def flush(self):
        """Delete the run's whole shared frontier, every worker's work: for an operator, never called on close."""
        if self.queue is not None:
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
        if self.queue is None:
            raise RuntimeError("shared requests before the worker joined a run's frontier (Scheduler.join)")
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
        request = self.queue.pop() if self._room() else None
        if request is not None:
            self.held.add(request.meta[LEASE][0])
            self._count("scheduler/dequeued/redis")
        return request

    def _room(self) -> bool:
        """Whether this worker may lease one more of the run's requests: its share of the frontier
        (landing.core.sampling.lease_shares) from the counts its last lease saw, else from Redis now."""
        if self.queue is None:
            return False
        if lease_room(*self.queue.seen, len(self.held), self.workers) > 0:
            return True
        return lease_room(*self.queue.lengths(), len(self.held), self.workers) > 0

    def has_pending_requests(self):
        # Leases held by other workers count: if one of them dies its work comes back here.
        return len(self.local) > 0 or sum(self.lengths()) > 0

    def __len__(self):
        return len(self.local) + sum(self.lengths())

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
        if self.queue is None:
            return
        try:
            if now >= self._reap_at:
                self._reap_at = now + min(self.reap_every, self.ttl / 2)
                reaped = self.queue.reap()
                if reaped:
                    logger.info("re-queued %d expired leases", reaped)
                    self._count("landing/frontier_redis/reaped", reaped)
            if now >= self._heartbeat_at and self.held:
                self._heartbeat_at = now + self.ttl / 3
                held = set(self.queue.extend(sorted(self.held), self.queue.token))
                # A lease whose keys Redis lost is no other worker's: its visit is still in hand here, and the
                # leader waits for it before it queues again the DOIs that have no visit.
                orphaned = self.queue.orphaned(sorted(self.held - held))
                if self.held - held - orphaned:
                    taken = len(self.held - held - orphaned)
                    logger.warning("lost %d leases (expired and reaped): they may be done twice", taken)
                if orphaned - self.held_orphaned:
                    found = len(orphaned - self.held_orphaned)
                    logger.warning("%d held leases lost their keys in Redis (flushed, evicted)", found)
                self.held = held | orphaned
                self.held_orphaned = orphaned
        except redis.RedisError as error:
            # Redis out for longer than the client's retries: the looping call must not stop, the next tick tries again.
            logger.warning("shared frontier upkeep failed: %s", error)

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
