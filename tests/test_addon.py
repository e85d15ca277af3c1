"""landing.addon: the crawl's Config read once, the spider's setting changes applied from it in their order."""

from scrapy.spiders import Spider
from scrapy.utils.misc import build_from_crawler
from scrapy.utils.test import get_crawler

from landing import config
from landing.crawl.resolver_pace import ResolverPaceMiddleware
from landing.crawl.retry import BackoffRetryMiddleware
from landing.match.matcher_spider import INPUTS, MatcherSpider
from landing.sampler.progress_log import Progress
from tests.crawl.project import PROJECT


def _counting(monkeypatch) -> list:
    built, read = [], config.Config.from_settings.__func__

    def counted(cls, settings):
        built.append(read(cls, settings))
        return built[-1]

    monkeypatch.setattr(config.Config, "from_settings", classmethod(counted))
    return built


def test_a_crawls_config_is_built_once_and_every_component_holds_that_one(monkeypatch, tmp_path):
    built = _counting(monkeypatch)
    crawler = get_crawler(Spider, {**PROJECT, "LANDING_DOCS": f"sqlite:///{tmp_path}/x.db"})
    held = [config.of(crawler)]
    for component in (ResolverPaceMiddleware, BackoffRetryMiddleware, Progress):
        build_from_crawler(component, crawler)
        held.append(config.of(crawler))
    assert len(built) == 1
    assert all(cfg is built[0] for cfg in held)
    assert crawler.landing_config.docs == f"sqlite:///{tmp_path}/x.db"


def test_the_spiders_setting_changes_run_with_the_crawls_config_in_their_order():
    seen = []

    class Changing(Spider):
        name = "changing"
        setting_changes = (
            lambda settings, cfg: seen.append(("first", cfg)),
            lambda settings, cfg: seen.append(("second", cfg)),
        )

    crawler = get_crawler(Changing, PROJECT)
    assert seen == [("first", crawler.landing_config), ("second", crawler.landing_config)]


def test_the_matchers_inputs_get_their_own_slot_from_its_setting_change():
    crawler = get_crawler(MatcherSpider, PROJECT)
    assert crawler.settings.getdict("DOWNLOAD_SLOTS")[INPUTS] == {"concurrency": 64, "delay": 0}


def test_the_samplers_setting_changes_split_a_shared_frontiers_limits_among_its_workers():
    from landing.sampler.doi_sampler import DoiSamplerSpider

    shared = {
        **PROJECT,
        "LANDING_FRONTIER_REDIS": "redis://127.0.0.1:1/0",
        "LANDING_WORKERS": 2,
        "LANDING_DRIVER": "http",
    }
    crawler = get_crawler(DoiSamplerSpider, shared)
    assert crawler.settings.get("SCHEDULER") == "landing.sampler.frontier_redis.Scheduler"
    assert crawler.settings.getint("CONCURRENT_REQUESTS_PER_DOMAIN") == PROJECT["CONCURRENT_REQUESTS_PER_DOMAIN"] // 2
    assert crawler.settings.getdict("DOWNLOAD_SLOTS")["doi.org"]["concurrency"] == 16
    assert crawler.landing_config.resolver_rate == PROJECT["LANDING_RESOLVER_RATE"] / 2


def test_the_samplers_setting_changes_pace_crossref_politely_once_a_mailto_names_the_crawler():
    from landing.crawl.endpoints import CROSSREF_POLITE
    from landing.sampler.doi_sampler import DoiSamplerSpider

    crawler = get_crawler(DoiSamplerSpider, {**PROJECT, "LANDING_MAILTO": "you@example.org", "LANDING_DRIVER": "http"})
    assert crawler.settings.getdict("DOWNLOAD_SLOTS")["api.crossref.org"] == CROSSREF_POLITE
