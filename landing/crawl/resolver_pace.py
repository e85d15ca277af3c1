"""The resolver at a rate: requests to doi.org (and its other names) wait their turn at LANDING_RESOLVER_RATE, in
this process, or with LANDING_MATCH_REDIS across every process that shares that Redis."""

import asyncio
import logging
import time
from urllib.parse import urlsplit

import redis.asyncio
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff
from scrapy import signals

from landing import config
from landing.core.web.pace import Pace

logger = logging.getLogger(__name__)

KEY = "landing:pace:resolver"
# landing.core.web.pace.Pace.book, kept in Redis: one key holds when the next turn is due at the steady rate. ARGV: now
# (seconds; "" for the Redis server's clock, the one clock every host shares), the interval, the tolerance (the
# burst's worth of intervals). Returns the wait as a string: Redis turns a Lua number into an integer.
GCRA = """
local now = tonumber(ARGV[1])
if not now then
  local t = redis.call('TIME')
  now = tonumber(t[1]) + tonumber(t[2]) / 1000000
end
local interval, tolerance = tonumber(ARGV[2]), tonumber(ARGV[3])
local due = tonumber(redis.call('GET', KEYS[1])) or -math.huge
local start = math.max(now, due - tolerance)
due = math.max(due, start) + interval
redis.call('SET', KEYS[1], string.format('%.6f', due), 'PX', math.ceil((due - now + tolerance + 1) * 1000))
return string.format('%.6f', start - now)
"""
# After a Redis error the process paces alone for this long before it asks Redis again.
PAUSE_SECONDS = 5.0
WARN_EVERY = 60.0
TIMEOUT = 2.0
# Connections to Redis a process books on at once: a booking is one short script.
CONNECTIONS = 32


class ResolverPaceMiddleware:
    """Hold each request to the resolver until its turn: a rate, where the slot's concurrency is only a cap.

    32 at once is 160 requests a second at 200 ms and several hundred at the resolver's real latency. Every
    request is counted (a DOI's first, its retries, Handle API lookups), so the rate is what doi.org sees. With
    `redis_url`, turns are booked in Redis so that N processes together keep the rate; while Redis fails, each
    paces alone at rate / `workers` (LANDING_WORKERS: set it to the number of processes sharing the rate).
    """

    def __init__(
        self,
        hosts: frozenset,
        rate: float,
        *,
        redis_url: str | None = None,
        workers: int = 1,
        stats=None,
        clock=None,
        key: str = KEY,
    ):
        self.hosts, self.stats, self.key = hosts, stats, key
        # `clock`: seconds, for the local pace and for Redis' turns; None: monotonic here, the server's in Redis.
        self.clock, self.now = clock, clock or time.monotonic
        self.pace = Pace(rate, burst=int(rate / 4))
        self.client = self.script = None
        if redis_url and rate > 0:
            # Bookings past the pool's connections wait for one (within TIMEOUT) rather than fail: the service asks
            # the resolver for as many inputs at once as its clients send, not a bounded few.
            pool = redis.asyncio.BlockingConnectionPool.from_url(
                redis_url,
                max_connections=CONNECTIONS,
                timeout=TIMEOUT,
                socket_timeout=TIMEOUT,
                socket_connect_timeout=TIMEOUT,
                retry=Retry(NoBackoff(), 0),
            )
            self.client = redis.asyncio.Redis.from_pool(pool)
            self.script = self.client.register_script(GCRA)
            self.args = (self.pace.interval, self.pace.tolerance)
            alone = rate / max(1, workers)
            self.pace = Pace(alone, burst=int(alone / 4))
        self.errors, self.paused_until, self.warned = 0, float("-inf"), float("-inf")

    @classmethod
    def from_crawler(cls, crawler):
        cfg = config.of(crawler)
        middleware = cls(
            cfg.resolver_hosts, cfg.resolver_rate, redis_url=cfg.match_redis, workers=cfg.workers, stats=crawler.stats
        )
        crawler.signals.connect(middleware.close, signal=signals.spider_closed)
        return middleware

    async def close(self, *_args, **_kwargs) -> None:
        """Close the Redis connection, if any (at spider_closed)."""
        if self.client is not None:
            await self.client.aclose()

    async def process_request(self, request, spider=None):
        if urlsplit(request.url).hostname in self.hosts:
            if wait := await self.book():
                await asyncio.sleep(wait)

    async def book(self) -> float:
        """Book the next turn: the seconds until it may be taken (0: at once); in Redis when it is shared and
        answers, else on this process's own pace."""
        if self.script is None or time.monotonic() < self.paused_until:
            return self.pace.book(self.now())
        now = "" if self.clock is None else repr(self.clock())
        try:
            return float(await self.script(keys=[self.key], args=[now, *map(repr, self.args)]))
        except (redis.RedisError, OSError, ValueError) as error:
            self._failed(error)
            return self.pace.book(self.now())

    def _failed(self, error: Exception) -> None:
        self.errors += 1
        if self.stats is not None:
            self.stats.inc_value("landing/resolver_pace/redis_errors")
        moment = time.monotonic()
        self.paused_until = moment + PAUSE_SECONDS
        if moment - self.warned >= WARN_EVERY:
            self.warned = moment
            logger.warning(
                "resolver pace: Redis failed (%d errors so far): %s: %s; pacing this process alone at %g/s for %g s",
                self.errors,
                type(error).__name__,
                error,
                1 / self.pace.interval if self.pace.interval else 0,
                PAUSE_SECONDS,
            )
