"""Stats: Scrapy's in-memory stats collector, its methods called directly."""

from scrapy.statscollectors import MemoryStatsCollector
from scrapy.utils.test import get_crawler

from landing import settings as project
from landing.crawl.stats import Stats


def test_the_crawl_collects_its_stats_with_the_projects_collector():
    assert isinstance(get_crawler(settings_dict={"STATS_CLASS": project.STATS_CLASS}).stats, Stats)


def test_a_stats_method_is_scrapys_own_not_a_wrapper_around_it():
    collector = Stats(get_crawler())
    assert collector.inc_value.__func__ is MemoryStatsCollector.inc_value
    # Scrapy's wraps it (when this fails, Scrapy dropped the shim and Stats can go)
    assert (
        getattr(MemoryStatsCollector(get_crawler()).inc_value, "__func__", None) is not MemoryStatsCollector.inc_value
    )


def test_stats_count_keep_extremes_and_survive_close_as_scrapys_do():
    collector = Stats(get_crawler())
    collector.open_spider()
    collector.inc_value("a")
    collector.inc_value("a", 2)
    collector.max_value("m", 3)
    collector.max_value("m", 1)
    collector.close_spider()
    assert collector.get_stats() == {"a": 3, "m": 3}
