"""The health checks' extension: Spidermon's monitors (landing.crawl.monitors), in continuous mode only.

Importing Spidermon costs about half a second of CPU (jsonschema's format checkers), which every crawl process would
pay, each `scrapy match` and each test crawl included, at start. Its periodic checks matter to a crawl that runs for
days, continuous mode; a full run ends in hours, and its close says its failures by class (docs/operations.md).
"""

from scrapy.exceptions import NotConfigured

from landing import config


class ContinuousHealth:
    """Spidermon's extension (landing.crawl.monitors.Monitoring) when LANDING_CONTINUOUS is on, else not configured."""

    @classmethod
    def from_crawler(cls, crawler):
        if not config.of(crawler).continuous:
            raise NotConfigured  # no message: Scrapy would say it as a WARNING in every full run
        from landing.crawl.monitors import Monitoring  # here only: the import is what a full run would pay for nothing

        return Monitoring.from_crawler(crawler)
