"""The shared frontier's queue in Redis (landing.sampler.frontier_redis): a pop is a lease, deleted only by an ack.

Every operation is one round trip (a Lua script or a pipeline). Payloads are JSON (landing.core.sampling.payloads) unless
SCHEDULER_SERIALIZER names another module: a pickle would run the code of whoever can write to the Redis.
"""

import logging
import uuid

import redis
from scrapy_redis.queue import PriorityQueue

from landing.core.sampling import payloads

logger = logging.getLogger(__name__)

LEASE = "landing_lease"

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

# Returns the lease with the frontier's (pending, leased) counts after it, for the worker's share of it.
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
    return {id, payload, redis.call('ZCARD', KEYS[1]), redis.call('ZCARD', KEYS[4])}
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
        super().__init__(server, spider, key, serializer or payloads)
        self.token = uuid.uuid4().hex  # this worker's identity in <q>:owner
        self.seen = (0, 0)  # (pending, leased) as the last lease or lengths() found them
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
        keys = [self.keys[k] for k in ("pending", "seq", "data", "prio")]
        calls = [[self.skew, self._encode_request(request), -request.priority, key] for request, key in requests]
        return [pushed.decode() if pushed else None for pushed in self._pipelined("push", keys, calls)]

    def lease(self):
        """Lease the best pending request to this worker: (id, payload), or None when pending is empty."""
        found = self._run("pop", "pending data prio leased owner", self.ttl, self.token)
        if not found:
            self.seen = (0, self.seen[1])
            return None
        self.seen = (found[2], found[3])
        return found[0].decode(), found[1]

    def pop(self, timeout=0):
        """Lease the best pending request and return it with (id, token) in meta["landing_lease"], or None."""
        found = self.lease()
        if found is None:
            return None
        lease_id, payload = found
        try:
            request = self._decode_request(payload)
        except Exception as error:
            # A payload this code cannot rebuild (a renamed callback, a worker running other code, a pickle) would
            # come back after every lease and keep all workers from finishing: bury it in <q>:dead, loudly.
            logger.error("moved undecodable shared request %s to %s: %s", lease_id, self.keys["dead"], error)
            self.ack(lease_id, self.token, bury=True)
            return None
        request.meta[LEASE] = (lease_id, self.token)
        return request

    def ack(self, lease_id, token, bury=False):
        """Delete a finished unit (or move it to <q>:dead) if `token` leased it last; return whether it did."""
        return bool(self._run("ack", "pending data prio leased owner dead", lease_id, token, int(bury)))

    def ack_many(self, leases):
        """ack() for many (id, token) pairs in one round trip; returns whether each was deleted."""
        keys = [self.keys[k] for k in "pending data prio leased owner dead".split()]
        calls = [[self.skew, lease_id, token, 0] for lease_id, token in leases]
        return [bool(done) for done in self._pipelined("ack", keys, calls)]

    def _pipelined(self, script, keys, calls):
        """The script run once for each argument list in `calls`, in one round trip: their results."""
        for attempt in (1, 2):
            pipe = self.server.pipeline(transaction=False)
            for args in calls:
                self._scripts[script](keys=keys, args=args, client=pipe)
            try:
                return pipe.execute()
            except redis.exceptions.NoScriptError:
                # Redis restarted between the pipeline's check of its scripts and their run (the client retried
                # onto the new server, which has none): run it again, which loads them. A visit's push and an ack
                # are no-ops the second time, so calls that went through before the restart are safe to repeat.
                if attempt == 2:
                    raise

    def extend(self, lease_ids, token):
        """Push the expiry of the leases still held by `token` to now + ttl; return those ids."""
        if not lease_ids:
            return []
        held = self._run("extend", "leased owner", self.ttl, token, *lease_ids)
        return [lease_id.decode() for lease_id in held]

    def orphaned(self, lease_ids):
        """The ids among lease_ids that no worker owns any more: Redis lost their keys (flushed, evicted)."""
        if not lease_ids:
            return set()
        owners = self.server.hmget(self.keys["owner"], lease_ids)
        return {lease_id for lease_id, owner in zip(lease_ids, owners) if owner is None}

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
        self.seen = tuple(pipe.execute())
        return self.seen

    def clear(self):
        self.server.delete(*self.keys.values())
