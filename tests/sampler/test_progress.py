"""landing.sampler.progress: the progress line, in DOIs, for a crawl that leads its run or follows one."""

import logging

from scrapy.statscollectors import MemoryStatsCollector
from scrapy.utils.test import get_crawler

from landing.sampler.progress import Progress


def line(caplog, **stats):
    collector = MemoryStatsCollector(get_crawler())
    for key, value in stats.items():
        collector.set_value(key, value)
    progress = Progress(collector, 5)
    progress.started = 0.0
    with caplog.at_level(logging.INFO, logger="landing.sampler.progress"):
        progress.report()
    return caplog.records[-1].getMessage()


def test_a_leading_crawl_says_how_many_owners_of_its_run_are_sampled(caplog):
    message = line(
        caplog,
        **{
            "landing/run/id": "r1",
            "landing/run/owners_sampled": 3,
            "landing/run/owners": 10,
            "landing/run/dois": 30,
            "landing/visits": 12,
            "landing/correctness/ok": 11,
            "landing/error/http-4xx": 1,
            "downloader/request_count": 40,
        },
    )
    assert message.startswith("progress: 30 DOIs sampled, 12 visited (11 pages, 1 failed), ")
    assert message.endswith(" DOIs/s, 40 requests; run r1: 3 of 10 owners sampled")


def test_a_following_worker_names_the_run_it_follows(caplog):
    message = line(caplog, **{"landing/run/id": "r1", "landing/run/following": 1, "landing/visits": 5})
    assert message.endswith("; run r1: following the worker that leads it")
