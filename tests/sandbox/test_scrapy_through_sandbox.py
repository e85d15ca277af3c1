"""Scrapy itself against a sandbox: LANDING_SANDBOX routes every request, robots.txt included, through the proxy.

One real crawl in a subprocess (the project's settings apply: cwd is the project), two start URLs: the landing
page of an ordinary site, and the landing page of a site whose robots.txt disallows everything.
"""

import json
import sys
import textwrap
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from landing_dev.sandbox.server import RunningSandbox
from tests import forked

PROJECT = Path(__file__).resolve().parents[2]

SPIDER = textwrap.dedent("""
    import json

    import scrapy


    class OnePage(scrapy.Spider):
        name = "one_page"

        def __init__(self, urls="", out="", **kwargs):
            super().__init__(**kwargs)
            self.urls, self.out = urls.split(" "), out

        async def start(self):
            for url in self.urls:
                yield scrapy.Request(url, callback=self.parse, dont_filter=True)

        def parse(self, response):
            yield {"url": response.url, "status": response.status}

        def closed(self, reason):
            stats = {k: v for k, v in self.crawler.stats.get_stats().items() if isinstance(v, (int, str))}
            with open(self.out, "w") as out:
                json.dump(stats, out)
""")


@pytest.fixture(scope="module")
def crawl(every_scenario_world, scenario_truth, tmp_path_factory):
    """Run the crawl once; give the two truth records, the crawl's stats, items and the sandbox's request log."""
    directory = tmp_path_factory.mktemp("crawl")
    (directory / "one_page.py").write_text(SPIDER)
    allowed, forbidden = scenario_truth["direct"][0], scenario_truth["robots-disallowed"][0]
    requests = []
    sandbox = RunningSandbox(every_scenario_world, log=requests.append)
    try:
        done = forked.run(
            [
                sys.executable,
                "-m",
                "scrapy",
                "runspider",
                str(directory / "one_page.py"),
                "-s",
                f"LANDING_SANDBOX={sandbox.proxy}",
                "-s",
                "LOG_LEVEL=INFO",
                "-s",
                "TELNETCONSOLE_ENABLED=False",
                "-a",
                f"urls={allowed['landing_url']} {forbidden['landing_url']}",
                "-a",
                f"out={directory / 'stats.json'}",
                "-o",
                f"{directory / 'items.jsonl'}:jsonlines",
            ],
            PROJECT,
            None,
            timeout=120,
        )
    finally:
        sandbox.close()
    assert done.returncode == 0, done.stderr[-3000:]
    stats = json.loads((directory / "stats.json").read_text())
    items = [json.loads(line) for line in open(directory / "items.jsonl")]
    return {
        "allowed": allowed,
        "forbidden": forbidden,
        "stats": stats,
        "items": items,
        "requests": requests,
        "log": done.stderr,
    }


def _robots_url(url):
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}/robots.txt"


def test_scrapy_fetches_robots_txt_through_the_sandbox(crawl):
    assert crawl["stats"]["robotstxt/request_count"] == 2
    assert crawl["stats"]["robotstxt/response_status_count/200"] == 2
    for truth in (crawl["allowed"], crawl["forbidden"]):
        assert f"GET {_robots_url(truth['landing_url'])} -> 200" in crawl["requests"]


def test_scrapy_gets_the_allowed_landing_page_with_200_through_the_sandbox(crawl):
    assert crawl["items"] == [{"url": crawl["allowed"]["landing_url"], "status": 200}]
    assert f"GET {crawl['allowed']['landing_url']} -> 200" in crawl["requests"]


def test_scrapy_does_not_fetch_a_page_robots_txt_disallows(crawl):
    assert crawl["stats"]["robotstxt/forbidden"] == 1
    assert not any(crawl["forbidden"]["landing_url"] in line for line in crawl["requests"])
    assert crawl["stats"]["downloader/response_status_count/200"] == 3  # two robots.txt and one page
