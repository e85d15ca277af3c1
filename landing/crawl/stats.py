"""The crawl's stats collector: Scrapy's in-memory one, called the way Scrapy 2.19 itself calls it, without the shim."""

from scrapy.statscollectors import MemoryStatsCollector


class Stats(MemoryStatsCollector):
    """MemoryStatsCollector less its `__getattribute__`, which wraps every attribute read to warn about a `spider`
    argument (deprecated in 2.14; nothing here passes one). Every request reads stats many times over, so the shim
    showed in a profile of the crawler's CPU (bench/README.md "Figures behind choices in the code")."""

    __getattribute__ = object.__getattribute__
