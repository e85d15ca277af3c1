"""The health checks in a real full run: none (they are continuous mode's)."""

import ast
import re


def dumped_stats(log: str) -> dict:
    """The stats Scrapy dumps when the crawl closes (a dict's repr), read back as the dict (datetimes as None)."""
    found = re.search(r"Dumping Scrapy stats:\n(\{.*?\})\n(?=\d{4}-\d\d-\d\d |\Z)", log, re.S)
    assert found, log[-3000:]
    return ast.literal_eval(re.sub(r"datetime\.datetime\([^)]*\)\)?", "None", found.group(1)))


def test_a_full_run_runs_no_health_check_and_never_imports_spidermon(mixed_crawl):
    # The checks are continuous mode's (landing.crawl.health_watch); their crawl is tests/sampler/test_continuous_planner.py's.
    _, done = mixed_crawl
    stats = dumped_stats(done.stderr)
    assert stats["landing/visits"] >= 100
    assert [key for key in stats if key.startswith("landing/health")] == []
    assert "[landing.crawl.monitors]" not in done.stderr and "spidermon" not in done.stderr.lower()
