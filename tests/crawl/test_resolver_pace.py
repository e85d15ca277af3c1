"""landing.crawl.resolver_pace: the resolver's turns booked in this process, or in a real redis-server shared by
several processes' middlewares, and the process's own pace when Redis fails."""

import asyncio
import socket

import redis

from landing.core.web.pace import Pace
from landing.crawl.resolver_pace import CONNECTIONS, KEY, ResolverPaceMiddleware
from tests.crawl.project import crawler

HOSTS = frozenset({"doi.org"})


class Clock:
    """A clock the test moves: the seconds every middleware of a test reads."""

    def __init__(self, now: float = 1000.0):
        self.now = now

    def __call__(self) -> float:
        return self.now


def _booked(middlewares, turns: int) -> list[float]:
    """The waits of `turns` bookings, the middlewares taking turns in order (as processes asking at once)."""

    async def book():
        waits = [round(await middlewares[i % len(middlewares)].book(), 6) for i in range(turns)]
        for middleware in middlewares:
            await middleware.close()
        return waits

    return asyncio.run(book())


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_two_middlewares_sharing_redis_book_together_what_one_pace_books_alone(redis_server):
    clock = Clock()
    shared = [
        ResolverPaceMiddleware(HOSTS, 20, redis_url=redis_server, clock=clock, key="test:pace:together")
        for _ in range(2)
    ]
    alone = Pace(20, burst=5)
    assert _booked(shared, 12) == [round(alone.book(clock.now), 6) for _ in range(12)]


def test_two_middlewares_sharing_redis_keep_the_combined_rate_over_a_simulated_minute(redis_server):
    clock = Clock()
    shared = [ResolverPaceMiddleware(HOSTS, 20, redis_url=redis_server, clock=clock, key="test:pace:minute")]
    shared.append(ResolverPaceMiddleware(HOSTS, 20, redis_url=redis_server, clock=clock, key="test:pace:minute"))
    taken = []

    async def run():
        # Each in turn books, and a turn is taken when its wait has passed; the clock moves 10 ms a step.
        pending = [None, None]
        while clock.now < 1060.0:
            for i, middleware in enumerate(shared):
                if pending[i] is None:
                    pending[i] = clock.now + await middleware.book()
                if pending[i] <= clock.now:
                    taken.append(pending[i])
                    pending[i] = None
            clock.now += 0.01
        for middleware in shared:
            await middleware.close()

    asyncio.run(run())
    assert 20 * 60 <= len(taken) <= 20 * 60 + 5  # the rate, and one burst of 5 at the start


def test_without_redis_each_middleware_paces_alone():
    clock = Clock()
    alone = [ResolverPaceMiddleware(HOSTS, 20, clock=clock) for _ in range(2)]
    assert _booked(alone, 4) == [0.0, 0.0, 0.0, 0.0]


def test_a_redis_that_fails_falls_back_to_the_processs_share_of_the_rate_and_is_counted():
    clock, made = Clock(), crawler()
    middleware = ResolverPaceMiddleware(
        HOSTS, 20, redis_url=f"redis://127.0.0.1:{_closed_port()}/0", workers=2, stats=made.stats, clock=clock
    )
    # rate 20 over 2 workers: 10 a second alone, a burst of 2.
    assert _booked([middleware], 4) == [0.0, 0.0, 0.1, 0.2]
    assert made.stats.get_value("landing/resolver_pace/redis_errors") == 1  # then Redis rests a while, unasked


def test_more_bookings_at_once_than_redis_connections_wait_for_one_and_none_fails(redis_server):
    clock, made = Clock(), crawler()
    middleware = ResolverPaceMiddleware(
        HOSTS, 20, redis_url=redis_server, stats=made.stats, clock=clock, key="test:pace:crowd"
    )

    async def crowd():
        waits = await asyncio.gather(*(middleware.book() for _ in range(CONNECTIONS * 4)))
        await middleware.close()
        return waits

    assert (len(asyncio.run(crowd())), made.stats.get_value("landing/resolver_pace/redis_errors")) == (
        CONNECTIONS * 4,
        None,
    )


def test_with_landing_match_redis_a_crawlers_middleware_books_in_redis_on_the_servers_clock(redis_server):
    middleware = ResolverPaceMiddleware.from_crawler(crawler(LANDING_MATCH_REDIS=redis_server))
    waits = _booked([middleware], 3)
    with redis.Redis.from_url(redis_server) as client:
        due, expires = client.get(KEY), client.pttl(KEY)
        client.delete(KEY)
    assert (waits, due is not None, 0 < expires <= 3000) == ([0.0, 0.0, 0.0], True, True)
