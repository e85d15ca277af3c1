"""The health checks in a real crawl: the shared crawl of the mixed world ends with the close verdict."""

import ast
import re


def dumped_stats(log: str) -> dict:
    """The stats Scrapy dumps when the crawl closes (a dict's repr), read back as the dict (datetimes as None)."""
    found = re.search(r"Dumping Scrapy stats:\n(\{.*?\})\n(?=\d{4}-\d\d-\d\d |\Z)", log, re.S)
    assert found, log[-3000:]
    return ast.literal_eval(re.sub(r"datetime\.datetime\([^)]*\)\)?", "None", found.group(1)))


def test_a_full_run_closes_with_the_failure_check_judged(mixed_crawl):
    _, done = mixed_crawl
    stats = dumped_stats(done.stderr)
    visits, failed = stats["landing/visits"], stats["landing/visits/failed"]
    assert visits >= 100 and failed < 50  # the mixed world: no window of 100 visits or more can pass the 50% bound
    lines = done.stderr.splitlines()
    closing = next(n for n, line in enumerate(lines) if "Closing spider" in line)
    said = [(n, line.split("] ", 1)[1]) for n, line in enumerate(lines) if "[landing.crawl.health]" in line]
    assert said[-1][0] > closing and said[-1][1] == "INFO: health: OK (failures)"  # the close pass's verdict
    # Periodic passes (every 60 s: none in a crawl this short, unless the machine is loaded) judge what they can.
    assert {line for _, line in said} <= {"INFO: health: OK (failures)", "INFO: health: OK (no check has judged yet)"}
    assert stats["landing/health/failures"] == 1
    if len(said) == 1:  # the close pass alone: it judged every visit of the crawl
        assert stats["landing/health/judged"] == [visits, failed]
