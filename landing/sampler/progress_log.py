"""Progress: a log line every few seconds with what the crawl has sampled, visited and found."""

import logging
import time

from scrapy import signals
from scrapy.exceptions import NotConfigured
from twisted.internet import task

from landing import config
from landing.core.sampling.run_progress import clock, expected_dois, kept, recent_rate, share, time_left
from landing.crawl.sent_requests import SENT

logger = logging.getLogger(__name__)
CONTINUOUS = "landing/continuous/"


class Progress:
    """Scrapy's LogStats speaks once a minute, in pages; this speaks in DOIs, every LANDING_PROGRESS_INTERVAL. Its
    rate is the recent one (landing.core.sampling.run_progress.recent_rate), so that a crawl waiting shows 0, not a decaying
    average, and the time left follows it."""

    def __init__(self, stats, interval: float, now=time.monotonic, shared: bool = False, continuous: bool = False):
        self.stats = stats
        self.interval = interval
        self.now = now
        self.shared = shared  # workers share the run: this one sees only its own visits
        self.continuous = continuous  # a run that never ends: no share of it, no time left
        self.started = None
        self.loop = None
        self.points = []

    @classmethod
    def from_crawler(cls, crawler):
        cfg = config.of(crawler)
        if cfg.progress_interval <= 0:
            raise NotConfigured
        progress = cls(crawler.stats, cfg.progress_interval, shared=bool(cfg.frontier_redis), continuous=cfg.continuous)
        crawler.signals.connect(progress.opened, signal=signals.spider_opened)
        crawler.signals.connect(progress.closed, signal=signals.spider_closed)
        return progress

    def opened(self, spider=None):
        self.started = self.now()
        self.points = [(self.started, 0)]
        self.loop = task.LoopingCall(self.report)
        self.loop.start(self.interval, now=False)

    def report(self):
        get = self.stats.get_value
        # Counted per DOI whose visit is recorded: under auto a DOI sent to the browser leaves two snapshots. The
        # line's head keeps its shape (bench/fullrun.py and bench/scaling.py read it); the run's share comes last.
        before, visits = get("landing/run/visited_before", 0), get("landing/visits", 0)
        failed, sampled = get("landing/visits/failed", 0), get("landing/run/dois", 0)
        visited = before + visits
        self.points = kept([*self.points, (self.now(), visits)])
        rate = recent_rate(self.points)
        counts = f"{before} before this crawl, " if before else ""
        counts += f"{visits - failed} pages, {failed} failed"
        if get("landing/run/following"):  # a follower knows neither the plan nor the other workers' visits
            run = "following the worker that leads it"
        elif self.continuous:
            run = self._continuous()
        else:
            run = f"{get('landing/run/owners_sampled', 0)} of {get('landing/run/owners', '?')} owners sampled"
            planned = get("landing/run/dois_planned")
            if planned and not self.shared:
                total = expected_dois(planned, get("landing/run/dois_planned_sampled", 0), sampled)
                run += f", {share(visited, total)} of its {total} DOIs visited"
                left = time_left(visited, total, rate)
                if left and visits:  # none before there is a rate, or once every DOI is visited
                    run += f", about {clock(left)} left"
        logger.info(
            "progress: %d DOIs sampled, %d visited (%s), %.1f DOIs/s, %d requests; run %s: %s",
            sampled,
            visited,
            counts,
            rate,
            get(SENT, 0),
            get("landing/run/id", "-"),
            run,
        )

    def _continuous(self) -> str:
        """A continuous run's part of the line: its rounds and prefixes, and the day's requests against the budget."""
        get = self.stats.get_value
        picks, rounds = get(CONTINUOUS + "picks", 0), get(CONTINUOUS + "rounds", 0)
        said = f"{picks} prefixes picked in this crawl, {rounds} rounds closed"
        if (known := get(CONTINUOUS + "prefixes")) is not None:
            said += f", {known} prefixes known ({get(CONTINUOUS + 'never_sampled', 0)} never sampled)"
        if (today := get(CONTINUOUS + "requests_today")) is not None:
            said += f", {today} of {get(CONTINUOUS + 'budget', 0):.0f} requests today (LANDING_BUDGET)"
        return said

    def closed(self, spider=None, reason=None):
        if self.loop and self.loop.running:
            self.loop.stop()
        if self.started is not None:
            self.report()
