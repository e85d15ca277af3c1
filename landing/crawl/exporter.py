"""The Prometheus exporter: /metrics on LANDING_METRICS_PORT, read from the crawl's stats at each scrape.

No timer copies stats into metrics: a custom collector reads a copy of the stats dict when Prometheus asks, on the
exporter's own thread (copying a dict of str keys is one step under the GIL, so it never sees half an update). The
names, types and the stats behind them are in docs/operations.md "Metrics".
"""

import logging

from prometheus_client import CollectorRegistry, start_http_server
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily
from prometheus_client.registry import Collector
from scrapy import signals
from scrapy.exceptions import NotConfigured

from landing import clock, config
from landing.core.continuous import health
from landing.core.continuous.status_line import moment
from landing.core.web import failures
from landing.crawl.sent_requests import SENT

logger = logging.getLogger(__name__)

CONTINUOUS = "landing/continuous/"
DELTA = "landing/delta/"  # the registry watcher's (landing.sampler.delta_watch)
# (metric, stat, help): counters, exported from the start (0 until counted) so that rate() has a first point; those
# of continuous mode once it has set any of its stats.
COUNTERS = (
    ("landing_dois_visited", "landing/visits", "DOIs whose visit this process recorded (snapshot and analysis stored)"),
    ("landing_visits_failed", "landing/visits/failed", "recorded visits whose final snapshot is a failure"),
    ("landing_requests", SENT, "requests the crawl sent (APIs, resolver, publishers, robots.txt, the browser's)"),
)
CONTINUOUS_COUNTERS = (
    ("landing_plan_rounds", CONTINUOUS + "rounds", "rounds continuous mode has closed"),
    ("landing_plan_picks", CONTINUOUS + "picks", "prefixes continuous mode picked to sample"),
    ("landing_prefixes_signalled", CONTINUOUS + "signalled", "prefix samples that signalled a change"),
    ("landing_exports", CONTINUOUS + "exports", "artifact versions continuous mode exported"),
)
# Those of the registry watcher, once it has set any of its stats.
DELTA_COUNTERS = (
    ("landing_delta_requests", DELTA + "requests", "requests the registry watcher sent (counted in the budget too)"),
    ("landing_delta_dois", DELTA + "dois", "updated DOIs the registry watcher read"),
    (
        "landing_delta_changes",
        DELTA + "changes",
        "updated DOIs on a domain their prefix was not seen on, kept for a visit",
    ),
    ("landing_delta_signalled", DELTA + "signalled", "prefixes a registry delta signalled"),
)
# (metric, stat, help): gauges, exported once their stat exists (a full run has none of continuous mode's).
GAUGES = (
    ("landing_run_owners", "landing/run/owners", "owners the run's plan holds"),
    ("landing_run_owners_sampled", "landing/run/owners_sampled", "owners this process sampled"),
    ("landing_run_dois_planned", "landing/run/dois_planned", "DOIs the run's plan samples"),
    ("landing_run_dois_sampled", "landing/run/dois", "DOIs this process sampled"),
    ("landing_prefixes", CONTINUOUS + "prefixes", "known prefixes"),
    ("landing_prefixes_never_sampled", CONTINUOUS + "never_sampled", "known prefixes never sampled"),
    ("landing_requests_today", CONTINUOUS + "requests_today", "requests made this simulated UTC day"),
    ("landing_budget_requests", CONTINUOUS + "budget", "requests a day continuous mode may make (LANDING_BUDGET)"),
    ("landing_requests_per_doi", CONTINUOUS + "requests_per_doi", "requests a DOI's visit costs, as planned"),
    ("landing_budget_within", CONTINUOUS + "within", "1 when the budget keeps every prefix within its target age"),
    ("landing_dois_seen", CONTINUOUS + "dois_seen", "distinct DOIs drawn, summed over the known prefixes"),
    ("landing_sites_seen", CONTINUOUS + "sites_seen", "distinct sites seen, summed over the known prefixes"),
)
AGES = (("0.5", "age_p50_days"), ("0.95", "age_p95_days"), ("1", "age_max_days"))


class StatsCollector(Collector):
    """The crawl's stats as metric families, built at each scrape."""

    def __init__(self, crawler, refresh_days: float):
        self.crawler, self.refresh_days = crawler, refresh_days

    def collect(self):
        stats = dict(self.crawler.stats.get_stats())
        now = clock.now()
        continuous = any(key.startswith(CONTINUOUS) for key in stats)
        deltas = DELTA_COUNTERS if any(key.startswith(DELTA) for key in stats) else ()
        for name, stat, text in COUNTERS + (CONTINUOUS_COUNTERS if continuous else ()) + deltas:
            yield _counter(name, text, stats.get(stat) or 0)
        yield _labelled(
            CounterMetricFamily,
            "landing_snapshot_failures",
            "final snapshots by failure class",
            "class",
            {c: stats.get(f"landing/error/{c}", 0) for c in failures.CLASSES},
        )
        yield _labelled(
            CounterMetricFamily,
            "landing_snapshot_pages",
            "final snapshots that reached a page, by meta-tag correctness",
            "correctness",
            _under(stats, "landing/correctness/"),
        )
        yield _labelled(
            CounterMetricFamily,
            "landing_refused",
            "requests the crawl refused to make, by reason",
            "reason",
            _under(stats, "landing/refused/"),
        )
        queued = (stats.get("scheduler/enqueued") or 0) - (stats.get("scheduler/dequeued") or 0)
        yield GaugeMetricFamily("landing_scheduler_requests", "requests waiting in the scheduler", value=queued)
        frontier = getattr(self.crawler, "landing_frontier", None)
        if frontier is not None:
            yield GaugeMetricFamily(
                "landing_frontier_dois",
                "sampled DOIs in this process's crawl: queued, downloading or being stored",
                value=frontier.size,
            )
        for name, stat, text in GAUGES:
            if stats.get(stat) is not None:
                yield GaugeMetricFamily(name, text, value=float(stats[stat]))
        yield from self._continuous(stats, now)
        yield _labelled(
            GaugeMetricFamily,
            "landing_health_ok",
            "1 when the health check passed at its last run, 0 when it failed",
            "check",
            {c: stats[f"landing/health/{c}"] for c in health.CHECKS if f"landing/health/{c}" in stats},
        )
        yield GaugeMetricFamily(
            "landing_clock_timestamp_seconds",
            "the crawl's clock (LANDING_CLOCK, compressed by LANDING_CLOCK_SPEED), as a Unix time",
            value=now.timestamp(),
        )

    def _continuous(self, stats: dict, now):
        # Continuous mode stores an age it does not have (nothing sampled yet) as -1, and an infinite keeps_days
        # (no budget) as -1: a stat stays a finite number. Prometheus gets no age, and +Inf.
        ages = {q: stats.get(CONTINUOUS + key) for q, key in AGES}
        ages = {q: v for q, v in ages.items() if v is not None and v >= 0}
        if ages:
            yield _labelled(
                GaugeMetricFamily,
                "landing_prefix_age_days",
                "days since known prefixes were last sampled: quantile 0.5, 0.95 and 1 (the oldest)",
                "quantile",
                ages,
            )
        keeps = stats.get(CONTINUOUS + "keeps_days")
        if keeps is not None:
            yield GaugeMetricFamily(
                "landing_budget_keeps_days",
                "the refresh period, in days, the budget sustains",
                value=float(keeps) if keeps >= 0 else float("inf"),
            )
        if CONTINUOUS + "prefixes" in stats:
            yield GaugeMetricFamily(
                "landing_refresh_days", "LANDING_REFRESH_DAYS: no prefix should be older", value=self.refresh_days
            )
        exported = moment(stats.get(CONTINUOUS + "last_export"))
        if exported is not None:
            yield GaugeMetricFamily(
                "landing_last_export_timestamp_seconds",
                "when the last artifact version was exported, on the crawl's clock",
                value=exported.timestamp(),
            )
            yield GaugeMetricFamily(
                "landing_last_export_age_seconds",
                "seconds of the crawl's clock since the last artifact version",
                value=(now - exported).total_seconds(),
            )
        looked = moment(stats.get(DELTA + "last"))
        if looked is not None:
            yield GaugeMetricFamily(
                "landing_delta_last_timestamp_seconds",
                "the end of the registry watcher's last window: updates up to then are read, on the crawl's clock",
                value=looked.timestamp(),
            )
            yield GaugeMetricFamily(
                "landing_delta_last_age_seconds",
                "seconds of the crawl's clock since the end of the registry watcher's last window",
                value=(now - looked).total_seconds(),
            )
        version = stats.get(CONTINUOUS + "last_version")
        if version:
            info = GaugeMetricFamily("landing_last_version", "the last artifact version exported", labels=["version"])
            info.add_metric([str(version)], 1)
            yield info


class MetricsExporter:
    """Serves the collector while the crawl runs; enabled by LANDING_METRICS_PORT."""

    def __init__(self, crawler, port: int, address: str, refresh_days: float):
        self.crawler, self.port, self.address = crawler, port, address
        self.registry = CollectorRegistry(auto_describe=False)  # one per crawl: several crawls may share a process
        self.registry.register(StatsCollector(crawler, refresh_days))
        self.server = self.thread = None

    @classmethod
    def from_crawler(cls, crawler):
        cfg = config.of(crawler)
        if cfg.metrics_port is None:
            raise NotConfigured
        exporter = cls(crawler, cfg.metrics_port, cfg.metrics_address, cfg.refresh_days)
        crawler.signals.connect(exporter.start, signal=signals.spider_opened)
        crawler.signals.connect(exporter.stop, signal=signals.engine_stopped)
        return exporter

    def start(self, spider=None):
        try:
            self.server, self.thread = start_http_server(self.port, self.address, registry=self.registry)
        except OSError as error:
            # Sampling is the job; metrics only watch it. The log and the stats say so, and no other process's
            # port is taken over.
            logger.error(
                "metrics: cannot serve on %s:%s (%s): this crawl goes on without metrics; set LANDING_METRICS_PORT "
                "to a free port (0: any)",
                self.address,
                self.port,
                error.strerror or error,
            )
            self.crawler.stats.set_value("landing/metrics/unavailable", f"{self.address}:{self.port}: {error}")
            return
        port = self.server.server_address[1]
        self.crawler.stats.set_value("landing/metrics/port", port)
        logger.info("metrics: Prometheus metrics at http://%s:%s/metrics", self.address, port)

    def stop(self):
        if self.server is not None:
            self.server.shutdown()
            self.server.server_close()
            self.thread.join(timeout=5)
            self.server = None


def _counter(name: str, text: str, value) -> CounterMetricFamily:
    return CounterMetricFamily(name, text, value=float(value))


def _labelled(kind, name: str, text: str, label: str, values: dict):
    family = kind(name, text, labels=[label])
    for key, value in sorted(values.items()):
        family.add_metric([key], float(value))
    return family


def _under(stats: dict, prefix: str) -> dict:
    return {key[len(prefix) :]: value for key, value in stats.items() if key.startswith(prefix)}
