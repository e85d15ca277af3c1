"""Which of the workers sharing a Redis frontier leads the run (lists the owners, stores the plan, samples), and
how they split the per-host limits.

The leader is whoever holds a lock in Redis (``<ns>:leader``, expiring after LANDING_LEASE_SECONDS unless renewed);
every worker, the leader too, visits what the leader shares. A leader that dies stops renewing, and the first
worker to find the lock free leads next: it resumes the run the dead one had published, from the document store,
as a restarted single crawl would; the visit ids the frontier is keyed by keep it from queueing a DOI twice.
``<ns>:run`` holds the last leadership's number, run id and state (``leading`` or ``ended``), so a worker knows
when the run it joined is over and never starts another one after it. A leader whose lock vanished with Redis's
data (a restart without persistence, a flush) takes it back as a renewal, unless another leadership began. A
continuous run never ends: its leader, stopping, releases the lock instead, and the next worker to ask leads it on.
"""

import time
import uuid
from urllib.parse import urlsplit

from landing.config import Config

# KEYS: leader run; ARGV: token ttl_ms floor mine run patient. Returns {status, floor, run, leadership}: status 1
# renewed, 2 taken (a new leadership; run is the id an unended one before it was on, to resume), 3 over (a
# leadership numbered above `floor` has ended), 0 another worker leads, 4 the record went back below `floor` (Redis
# lost its data): a follower leaves the lock to the leader for a lease, then (`patient` 1) takes it like any other.
# floor -1 (a worker's first call) is computed here, atomically with the look: the last leadership that had ended
# when the worker came. `mine` is the leadership the caller holds (0: it follows): finding its lock gone, and no
# later leadership begun, it takes the lock back and restores the record (`run`), which is a renewal.
_LEAD = """
local n = tonumber(redis.call('HGET', KEYS[2], 'leadership') or '0')
local state = redis.call('HGET', KEYS[2], 'state')
local floor = tonumber(ARGV[3])
if floor < 0 then
  if state == 'ended' then floor = n else floor = n - 1 end
end
local holder = redis.call('GET', KEYS[1])
if holder == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return {1, floor, '', 0}
end
local mine = tonumber(ARGV[4])
if mine > 0 then
  if holder or n > mine then return {0, floor, '', 0} end
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  redis.call('HSET', KEYS[2], 'leadership', mine, 'state', 'leading', 'run', ARGV[5])
  return {1, floor, '', mine}
end
if state == 'ended' and n > floor then return {3, floor, '', 0} end
if n <= floor and state ~= 'ended' and ARGV[6] ~= '1' then return {4, floor, '', 0} end
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
  local run = ''
  if state == 'leading' then run = redis.call('HGET', KEYS[2], 'run') or '' end
  redis.call('HSET', KEYS[2], 'leadership', n + 1, 'state', 'leading', 'run', run)
  return {2, floor, run, n + 1}
end
return {0, floor, '', 0}
"""

# KEYS: leader run; ARGV: token. Ends the leadership only if it is still this worker's.
_END = """
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[2], 'state', 'ended')
redis.call('DEL', KEYS[1])
return 1
"""


# KEYS: leader; ARGV: token. Frees the lock only if it is still this worker's; the run's record stays `leading`.
_RELEASE = """
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
return redis.call('DEL', KEYS[1])
"""


FOLLOWING, RENEWED, TAKEN, OVER, LOST = 0, 1, 2, 3, 4


class SharedRun:
    clock = staticmethod(time.monotonic)  # how long a follower has waited for a leader to come back (tests move it)

    def __init__(self, server, key: str, ttl: float):
        self.server = server
        self.ttl_ms = int(ttl * 1000)
        self.token = uuid.uuid4().hex
        self.keys = [f"{key}:leader", f"{key}:run"]
        self._lead = server.register_script(_LEAD)
        self._end = server.register_script(_END)
        self._release = server.register_script(_RELEASE)
        self.floor = -1  # the last leadership that had ended when this worker came: a previous crawl's
        self.inherited = ""  # the run a leader that died was on, when this worker took over from it
        self.leadership = 0  # what this worker leads (0: it follows)
        self.run = ""  # the run it published
        self._lost_at = None  # when this follower found the record lost

    def lead(self) -> int:
        """Take the lead if it is free, or renew it: TAKEN, RENEWED, FOLLOWING (another leads) or OVER (a
        leadership this worker followed has ended: the run's work is done)."""
        patient = self._lost_at is not None and self.clock() - self._lost_at >= self.ttl_ms / 1000
        found = self._lead(
            keys=self.keys, args=[self.token, self.ttl_ms, self.floor, self.leadership, self.run, int(patient)]
        )
        status, self.floor, run, leadership = found
        status = int(status)
        if status == LOST:
            # Redis lost the run's record (restarted empty, flushed): the leader, if alive, takes it back first.
            self._lost_at = self._lost_at if self._lost_at is not None else self.clock()
            return FOLLOWING
        self._lost_at = None
        if status == TAKEN:
            self.inherited = run.decode() if isinstance(run, bytes) else run
        if status in (TAKEN, RENEWED) and int(leadership):
            self.leadership = int(leadership)
        elif status != RENEWED:
            self.leadership = 0
        return status

    def published(self) -> str:
        """The run the current leadership said it works on ('' until it has)."""
        run = self.server.hget(self.keys[1], "run")
        return run.decode() if isinstance(run, bytes) else (run or "")

    def publish(self, run_id: str) -> None:
        """Say which run this leadership works on, for a worker that takes over if this one dies."""
        self.run = run_id
        self.server.hset(self.keys[1], "run", run_id)

    def end(self) -> bool:
        """The leader is done with the run (finished, or stopped for good in this crawl): the followers may stop."""
        return bool(self._end(keys=self.keys, args=[self.token]))

    def release(self) -> bool:
        """Free the lead without ending the run (a continuous leader that stops): the first worker to ask takes it
        at once and resumes the run, as after a leader's death but without waiting out its lease."""
        return bool(self._release(keys=self.keys[:1], args=[self.token]))


def shared_frontier(settings, cfg: Config) -> None:
    """With LANDING_FRONTIER_REDIS, the shared frontier's scheduler, and the per-host limits split (`share_hosts`)."""
    if cfg.frontier_redis:
        settings.set(
            "SCHEDULER", "landing.sampler.frontier_redis.Scheduler", priority=settings.getpriority("SCHEDULER")
        )
        share_hosts(settings, cfg)


def share_hosts(settings, cfg: Config) -> None:
    """Split the per-host limits among LANDING_WORKERS workers, so together they ask a host no more than one would.

    The resolver's slot is split too (its rate is, in the Config: landing.config); the APIs' are not: only the leader
    asks them.
    """
    workers = cfg.workers
    if workers <= 1:
        return
    for name in ("CONCURRENT_REQUESTS_PER_DOMAIN", "CONCURRENT_REQUESTS_PER_IP"):
        if settings.getint(name):
            settings.set(name, max(1, settings.getint(name) // workers), priority=settings.getpriority(name))
    target = settings.getfloat("AUTOTHROTTLE_TARGET_CONCURRENCY")
    settings.set(
        "AUTOTHROTTLE_TARGET_CONCURRENCY",
        max(1.0, target / workers),
        priority=settings.getpriority("AUTOTHROTTLE_TARGET_CONCURRENCY"),
    )
    slots = settings.getdict("DOWNLOAD_SLOTS")
    resolver = urlsplit(cfg.doi_resolver).hostname
    if resolver in slots:
        slots[resolver] = {**slots[resolver], "concurrency": max(1, slots[resolver].get("concurrency", 1) // workers)}
        settings.set("DOWNLOAD_SLOTS", slots, priority=settings.getpriority("DOWNLOAD_SLOTS"))
