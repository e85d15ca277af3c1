"""The stream consumer as `scrapy serve` runs it (LANDING_STREAM_*, docs/service.md "Event streams")."""

import asyncio

from landing.match.answering import MatcherClosed
from landing.serve.stream import StreamConsumer, client_for


class StreamService:
    """Started once the Matcher is ready, answering with it; drained on SIGTERM alongside the HTTP requests (an entry
    the Matcher could not answer because it is closing stays pending, for another consumer to claim)."""

    def __init__(self, cfg, logger):
        self.cfg, self.logger = cfg, logger
        self.consumer: StreamConsumer | None = None
        self.stopping, self.running, self.client = asyncio.Event(), None, None

    def start(self, matcher) -> None:
        cfg = self.cfg
        self.client = client_for(cfg.match_redis)
        self.consumer = StreamConsumer(
            self.client,
            cfg.stream_in,
            cfg.stream_out,
            cfg.stream_group,
            cfg.stream_consumer,
            matcher.match,
            batch=cfg.stream_batch,
            claim_idle_ms=int(cfg.stream_claim_seconds * 1000),
            concurrency=cfg.stream_concurrency,
            maxlen=cfg.stream_maxlen,
            logger=self.logger,
            max_input=cfg.serve_max_input,
            unanswered=(MatcherClosed,),
        )
        self.running = asyncio.ensure_future(self.consumer.run(self.stopping))
        self.logger.info(
            "Consuming %s into %s (group %s, consumer %s)",
            cfg.stream_in,
            cfg.stream_out,
            cfg.stream_group,
            cfg.stream_consumer,
        )

    async def drain(self, seconds: float) -> bool:
        """Read no more entries and let those held finish within `seconds`; past it they are dropped, and stay
        pending for another consumer to claim. True when every one finished."""
        if self.running is None:
            return True
        self.stopping.set()
        try:
            await asyncio.wait_for(asyncio.shield(self.running), seconds)
            finished = True
        except TimeoutError:
            held = len(self.consumer.held)
            self.logger.warning(
                "%d stream entries still answered after %g s: left pending for another consumer", held, seconds
            )
            self.running.cancel()
            await asyncio.gather(self.running, return_exceptions=True)
            finished = False
        await self.client.aclose()
        return finished
