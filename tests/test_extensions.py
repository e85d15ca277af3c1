"""landing.extensions: the progress line, in DOIs, for a crawl that leads its run or follows one; the level gate."""
import logging

from scrapy.settings import Settings
from scrapy.statscollectors import MemoryStatsCollector
from scrapy.utils.log import _uninstall_scrapy_root_handler, install_scrapy_root_handler
from scrapy.utils.test import get_crawler

from landing.extensions import LevelGate, Progress


def line(caplog, **stats):
    collector = MemoryStatsCollector(get_crawler())
    for key, value in stats.items():
        collector.set_value(key, value)
    progress = Progress(collector, 5)
    progress.started = 0.0
    with caplog.at_level(logging.INFO, logger="landing.extensions"):
        progress.report()
    return caplog.records[-1].getMessage()


def test_a_leading_crawl_says_how_many_owners_of_its_run_are_sampled(caplog):
    message = line(caplog, **{"landing/run/id": "r1", "landing/run/owners_sampled": 3, "landing/run/owners": 10,
                              "landing/run/dois": 30, "landing/visits": 12, "landing/correctness/ok": 11,
                              "landing/error/http-4xx": 1, "downloader/request_count": 40})
    assert message.startswith("progress: 30 DOIs sampled, 12 visited (11 pages, 1 failed), ")
    assert message.endswith(" DOIs/s, 40 requests; run r1: 3 of 10 owners sampled")


def test_a_following_worker_names_the_run_it_follows(caplog):
    message = line(caplog, **{"landing/run/id": "r1", "landing/run/following": 1, "landing/visits": 5})
    assert message.endswith("; run r1: following the worker that leads it")


def test_the_level_gate_lifts_the_root_logger_to_the_scrapy_handlers_level_while_the_engine_runs():
    before = logging.root.level
    install_scrapy_root_handler(Settings({"LOG_LEVEL": "INFO"}))
    try:
        gate = LevelGate()
        gate.raise_root()
        assert (logging.root.level, logging.getLogger("scrapy.core.engine").isEnabledFor(logging.DEBUG)) == \
            (logging.INFO, False)
        gate.restore_root()
        assert logging.root.level == logging.NOTSET
    finally:
        _uninstall_scrapy_root_handler()
        logging.root.setLevel(before)


def test_the_level_gate_leaves_logging_alone_when_scrapy_installed_no_root_handler():
    before = logging.root.level
    logging.root.setLevel(logging.DEBUG)
    try:
        LevelGate().raise_root()
        assert logging.root.level == logging.DEBUG
    finally:
        logging.root.setLevel(before)
