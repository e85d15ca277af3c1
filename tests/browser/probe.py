"""Visit URLs with the browser driver's own pieces (landing.browser.driver) and a real Chromium, in a subprocess.

Scrapy installs its reactor once per process, hence the subprocess. Prints one JSON line per visit.
"""

import json
import os
import sys
from pathlib import Path

import pytest

from tests import forked

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = "/usr/bin/chromium"
needs_chromium = pytest.mark.skipif(
    not os.access(CHROMIUM, os.X_OK),
    reason=f"no Chromium at {CHROMIUM}: `make test` installs Debian's chromium where apt-get runs as root; here it "
    "could not",
)

SCRIPT = """
import json, os, sys
import psutil
import scrapy
from scrapy.crawler import AsyncCrawlerProcess
import landing.settings as project
from landing import config
from landing.browser import driver as browser
from landing.browser.rules import rules_of

class Probe(scrapy.Spider):
    name = "probe"

    setting_changes = (browser.configure,)

    async def start(self):
        for url in sys.argv[2:]:
            meta = browser.request_meta({"pid/doi": url}, False, config.of(self.crawler).browser_settle * 1000)
            yield scrapy.Request(url, meta=meta, callback=self.visited, errback=self.failed, dont_filter=True)

    async def visited(self, response):
        await browser.end(response.meta, rules_of(self.crawler))
        response.meta["text"] = " ".join(response.xpath("//body//p//text()").getall())
        self.report(response.meta, "visited")

    async def failed(self, failure):
        await browser.end(failure.request.meta, rules_of(self.crawler))
        self.report(failure.request.meta, "failed")

    def report(self, meta, how):
        stop = meta["landing_navigation"].stop()
        print(json.dumps({"url": meta["pid"]["pid/doi"], "how": how, "hops": meta["landing_navigation"].hops(),
                          "stop": stop and [stop[0], stop[1].error, stop[1].detail],
                          "text": meta.get("text"), "chromium_environ": chromium_environ(),
                          "contexts": self.crawler.stats.get_value("playwright/context_count")}))


def chromium_environ():
    \"\"\"The names of the environment variables of the running Chromium processes, all of them together.\"\"\"
    names = set()
    for process in psutil.Process().children(recursive=True):
        try:
            if "chrom" in process.name():
                names.update(process.environ())
        except psutil.Error:
            pass
    return sorted(names)


if os.environ.get("LANDING_TEST_EUID"):  # a crawl as another user: Chromium's sandbox is then tried
    os.geteuid = lambda: int(os.environ["LANDING_TEST_EUID"])
if os.environ.get("LANDING_TEST_NETWORK"):  # tests/browser/network.py: public addresses onto local listeners
    from landing.browser import forward_proxy
    from tests.browser.network import mapped
    forward_proxy.open_connection = mapped(json.loads(os.environ["LANDING_TEST_NETWORK"]), [])

settings = {name: getattr(project, name) for name in dir(project) if name.isupper()}
settings.update(ITEM_PIPELINES={}, EXTENSIONS={}, LOG_LEVEL="WARNING", TELNETCONSOLE_ENABLED=False,
                LANDING_DRIVER="browser", ROBOTSTXT_OBEY=False)
settings.update(json.loads(sys.argv[1]))
process = AsyncCrawlerProcess(settings)
process.crawl(Probe)
process.start()
"""


def visit(urls: list[str], network: dict | None = None, environ: dict | None = None, **settings) -> dict:
    """{url: {how: visited|failed, hops, stop: [url, class, detail] or None, text, chromium_environ, contexts: browser
    contexts made so far}} for each URL,
    with these settings; network: tests/browser/network.py's map, environ: added to the crawl's environment."""
    return run(urls, network, environ, **settings)[0]


def run(urls: list[str], network: dict | None = None, environ: dict | None = None, **settings) -> tuple[dict, str]:
    """visit's answer, and the crawl's log (stderr)."""
    environ = {**os.environ, **(environ or {}), "LANDING_TEST_NETWORK": json.dumps(network) if network else ""}
    done = forked.run([sys.executable, "-c", SCRIPT, json.dumps(settings), *urls], ROOT, environ, 120)
    assert done.returncode == 0, done.stderr[-3000:]
    return {line["url"]: line for line in map(json.loads, done.stdout.splitlines())}, done.stderr
