"""What operating the sampler costs: `scrapy status` on a store at the registries' scale (continuous mode's prefixes;
a full run's samples and visits), a Prometheus scrape of the exporter, one pass of the health checks.

    .venv/bin/python -m bench.operations [--prefixes 67033] [--owners 5000] [--per-owner 100] [--scrapes 200]
"""

import argparse
import subprocess
import tempfile
import time
import urllib.request
from datetime import UTC, datetime, timedelta
from pathlib import Path

from scrapy.spiders import Spider
from scrapy.utils.test import get_crawler

from landing import clock, settings
from landing.core.continuous.freshness import Prefix, prefix_doc, prefix_id
from landing.core.sampling import runs
from landing.core.web import failures
from landing.crawl.exporter import MetricsExporter
from landing.crawl.monitors import Monitoring
from landing.stores import open_docs
from landing_dev import runner

PROJECT = {name: getattr(settings, name) for name in dir(settings) if name.isupper()}

NOW = datetime(2026, 11, 26, 4, tzinfo=UTC)
CLOCK = {"LANDING_CLOCK": "2026-11-26T04:00:00Z", "LANDING_CLOCK_SPEED": 1e-9}


def status(folder: Path) -> tuple[float, str]:
    """(seconds, its line) of `scrapy status` on the store and artifacts under `folder`, as an operator runs it."""
    settings = {"LANDING_DOCS": f"sqlite:///{folder / 'landing.db'}", "LANDING_ARTIFACTS_DIR": folder / "artifacts"}
    started = time.perf_counter()
    done = subprocess.run(
        runner.scrapy_command("status", settings={**settings, **CLOCK}),
        cwd=runner.PROJECT,
        capture_output=True,
        text=True,
    )
    return time.perf_counter() - started, (done.stdout or done.stderr).strip()


def continuous_store(folder: Path, prefixes: int) -> None:
    with open_docs(f"sqlite:///{folder / 'landing.db'}") as docs:
        for n in range(prefixes):
            sampled = None if n % 100 == 0 else NOW - timedelta(days=(n % 60) / 10)
            prefix = Prefix("crossref", str(n // 3), f"10.{10000 + n}", 40, sampled)
            docs.put("prefix", prefix_id("crossref", prefix.prefix), prefix_doc(prefix, "2026-10-01T00:00:00Z"))
        state = {
            "continuous/run": "continuous",
            "continuous/exported": "2026-11-26T01:00:00Z",
            "continuous/version": "20261126T010000Z",
            "continuous/day": "2026-11-26",
            "continuous/requests-today": 100_000,
        }
        docs.put("continuous", "state", state)


def full_run_store(folder: Path, owners: int, per_owner: int) -> None:
    with open_docs(f"sqlite:///{folder / 'landing.db'}") as docs:
        docs.put(
            "run",
            "r1",
            {
                "run/id": "r1",
                "run/started": "2026-11-25T00:00:00Z",
                "run/state": "visiting",
                "run/owners": owners,
                "run/dois-planned": owners * per_owner,
            },
        )
        for order in range(owners):
            dois = [f"10.{order}/{rank}" for rank in range(per_owner)]
            docs.put("sample", runs.sample_id("r1", order), {"sample/order": order, "sample/dois": dois})
            for rank, doi in enumerate(dois):
                docs.put("visit", runs.visit_id("r1", order, rank), runs.visit_doc("r1", order, rank, doi, "s"))


def crawl_stats() -> dict:
    """Stats of the size a long continuous crawl carries (Scrapy's own, the sampler's, continuous mode's)."""
    stats = {f"downloader/response_status_count/{code}": 10 for code in range(200, 600, 3)}
    stats |= {f"landing/error/{c}": 5 for c in failures.CLASSES} | {f"landing/refused/r{n}": 1 for n in range(9)}
    stats |= {"landing/visits": 500_000, "landing/visits/failed": 20_000, "downloader/request_count": 1_400_000}
    stats |= {f"landing/continuous/{k}": 1.5 for k in ("age_p50_days", "age_p95_days", "age_max_days", "keeps_days")}
    stats |= {"landing/continuous/prefixes": 67_033, "landing/continuous/last_export": "2026-11-26T01:00:00Z"}
    return stats


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--prefixes", type=int, default=67_033)
    parser.add_argument("--owners", type=int, default=5000)
    parser.add_argument("--per-owner", type=int, default=100)
    parser.add_argument("--scrapes", type=int, default=200)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as name:
        (continuous := Path(name) / "continuous").mkdir()
        continuous_store(continuous, args.prefixes)
        seconds, line = status(continuous)
        print(f"scrapy status, {args.prefixes:,} prefixes: {seconds:.2f} s\n  {line}")
        (full := Path(name) / "full").mkdir()
        full_run_store(full, args.owners, args.per_owner)
        seconds, line = status(full)
        print(f"scrapy status, a full run of {args.owners * args.per_owner:,} visits: {seconds:.2f} s\n  {line}")

    clock.set_clock(CLOCK["LANDING_CLOCK"], CLOCK["LANDING_CLOCK_SPEED"])
    made = get_crawler(settings_dict={**PROJECT, "LANDING_METRICS_PORT": 0})
    made.spider = Spider.from_crawler(made, name="doi_sampler")
    made.stats.open_spider()
    for key, value in crawl_stats().items():
        made.stats.set_value(key, value)
    made.stats.set_value("start_time", datetime.now(UTC))
    exporter = MetricsExporter.from_crawler(made)
    exporter.start()
    url = f"http://127.0.0.1:{made.stats.get_value('landing/metrics/port')}/metrics"
    started, size = time.perf_counter(), 0
    for _ in range(args.scrapes):
        with urllib.request.urlopen(url) as answer:
            size = len(answer.read())
    scrape = (time.perf_counter() - started) / args.scrapes
    exporter.stop()
    print(f"a scrape of /metrics ({len(made.stats.get_stats())} stats, {size:,} bytes): {scrape * 1000:.2f} ms")
    monitoring = Monitoring.from_crawler(made)
    started = time.perf_counter()
    for _ in range(100):
        monitoring._run_suites(made.spider, [monitoring.load_suite("landing.crawl.monitors.HealthSuite")])
    print(
        f"a pass of the health checks (the suite loaded, as each periodic pass loads it): "
        f"{(time.perf_counter() - started) * 10:.2f} ms"
    )


if __name__ == "__main__":
    main()
