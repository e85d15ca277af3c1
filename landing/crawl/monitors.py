"""Health checks as Spidermon monitors: run every SPIDERMON_PERIODIC_MONITORS seconds and when the spider closes, by
Spidermon's extension (`Monitoring`: its own report at DEBUG).

Each check judges the crawl's stats by landing.core.continuous.health (as `scrapy status` judges the store), records its
verdict as the stat `landing/health/<check>` (1 passed, 0 failed; the exporter's `landing_health_ok{check}`), and
the suite logs one line: `health: OK` at INFO, or `health: FAILED: ...` at ERROR with what each failed check saw.
A check that does not apply (freshness, export and clock outside continuous mode, failures under
tuning.HEALTH_MIN_VISITS new visits) is skipped and keeps its last verdict. docs/operations.md "Health".
"""

import logging
import time
import warnings
from datetime import timedelta

from scrapy.exceptions import ScrapyDeprecationWarning
from spidermon import Action, Monitor, MonitorSuite, monitors
from spidermon import settings as spidermon_settings
from spidermon.contrib.scrapy.extensions import Spidermon
from spidermon.contrib.scrapy.runners import SpiderMonitorResult, SpiderMonitorRunner

from landing import clock, config
from landing.core.continuous import health
from landing.core.continuous.status_line import moment

logger = logging.getLogger(__name__)
# Spidermon 1.27 logs its report through Spider.log(), deprecated since Scrapy 2.14: said once per crawl, it tells
# the operator nothing they can act on.
warnings.filterwarnings(
    "ignore", r"Spider\.log\(\) is deprecated", ScrapyDeprecationWarning, module=r"spidermon\.contrib\.scrapy\.runners"
)

CONTINUOUS = "landing/continuous/prefixes"  # set by continuous mode only: the mark of a continuous crawl
JUDGED = "landing/health/judged"  # [visits, failed] when the failure share was last judged: the next window's base


class Checks(Monitor):
    """landing's health checks (landing.core.continuous.health)."""

    @monitors.name(health.FRESHNESS)
    def test_freshness(self):
        """No known prefix is older than LANDING_REFRESH_DAYS (continuous mode)."""
        stats = self.data.stats
        if CONTINUOUS not in stats:
            self.skipTest("not continuous mode")
        oldest = stats.get("landing/continuous/age_max_days")  # -1: nothing sampled yet
        self._judge(health.freshness(oldest if oldest is None or oldest >= 0 else None, self._config().refresh_days))

    @monitors.name(health.FAILURES)
    def test_failures(self):
        """At most tuning.HEALTH_FAILURES of the visits since the last judged check failed."""
        stats, cfg = self.data.stats, self._config()
        visits, failed = stats.get("landing/visits") or 0, stats.get("landing/visits/failed") or 0
        new, new_failed = health.window(visits, failed, stats.get(JUDGED))
        check = health.failures(new, new_failed, cfg.health_failures, cfg.health_min_visits)
        if check is None:
            self.skipTest(f"{new} visits since the last judged check, fewer than {cfg.health_min_visits}")
        self.data.crawler.stats.set_value(JUDGED, [visits, failed])
        self._judge(check)

    @monitors.name(health.EXPORT)
    def test_export(self):
        """An artifact version was exported within twice LANDING_EXPORT_EVERY (continuous mode)."""
        stats = self.data.stats
        if CONTINUOUS not in stats:
            self.skipTest("not continuous mode")
        now = clock.now()
        last = moment(stats.get("landing/continuous/last_export"))
        self._judge(health.export(last, began(stats.get("start_time"), now), now, self._config().health_export_hours))

    @monitors.name(health.CLOCK)
    def test_clock(self):
        """Nothing the run recorded is later than now: a clock gone back plans on negative ages (continuous mode)."""
        stats = self.data.stats
        if CONTINUOUS not in stats:
            self.skipTest("not continuous mode")
        self._judge(health.clock([moment(stats.get("landing/continuous/latest_record"))], clock.now()))

    def _config(self):
        return config.of(self.data.crawler)

    def _judge(self, check: health.Check):
        standing(self.data.crawler)[check.name] = check
        self.data.crawler.stats.set_value(f"landing/health/{check.name}", int(check.ok))
        if not check.ok:
            self.fail(check.detail)


class Verdict(Action):
    """The suite's one log line, from every check's standing verdict (a skipped check keeps its last); a check that
    raised counts as failed (a bug is no pass)."""

    def run_action(self):
        crawler, verdicts = self.data.crawler, standing(self.data.crawler)
        for found in self.result.monitor_results:
            if found.status == spidermon_settings.MONITOR.STATUS.ERROR:
                name, said = found.item.method_name, (found.error or "").strip().splitlines()[-1:]
                verdicts[name] = health.Check(name, False, f"the check raised {''.join(said)}")
                crawler.stats.set_value(f"landing/health/{name}", 0)
        judged = [verdicts[name] for name in health.CHECKS if name in verdicts]
        if all(check.ok for check in judged):
            logger.info("health: OK (%s)", ", ".join(c.name for c in judged) or "no check has judged yet")
        else:
            logger.error("health: %s", health.verdict(judged))


class HealthSuite(MonitorSuite):
    monitors = [Checks]
    monitors_finished_actions = [Verdict]


def standing(crawler) -> dict:
    """The crawl's standing verdict of each check judged so far, by name."""
    if getattr(crawler, "landing_health", None) is None:
        crawler.landing_health = {}
    return crawler.landing_health


class Monitoring(Spidermon):
    """Spidermon's extension, its report of each run at DEBUG: the suite's Verdict says the outcome in one line, where
    Spidermon's own report is a dozen lines a run (a run a minute in continuous mode). A monitor that raised (a bug,
    not a failed check) is still reported at ERROR with its traceback."""

    def _run_suites(self, spider, suites):
        data = self._generate_data_for_spider(spider)
        for suite in suites:
            _QuietRunner(spider=spider).run(suite, **data)


class _QuietResult(SpiderMonitorResult):
    def log_info(self, msg):
        self.log(msg, level=logging.DEBUG)

    def write_errors(self):
        for item in self.step.items_for_status(spidermon_settings.MONITOR.STATUS.ERROR):
            self.log_error(f"{item.status}: {item.item.name}\n{item.error}")


class _QuietRunner(SpiderMonitorRunner):
    def create_result(self):
        return _QuietResult(self.spider)


def began(start_time, now):
    """When the crawl began on its clock: Scrapy's start_time is the wall clock's, and LANDING_CLOCK_SPEED may
    compress the crawl's own."""
    if start_time is None:
        return now
    real = max(time.time() - start_time.timestamp(), 0)
    return now - timedelta(seconds=real * clock.speed())
