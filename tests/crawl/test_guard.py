"""landing.crawl.guard: every hop to a loopback, private, link-local or cloud-metadata address is refused and counted."""

import asyncio
import json
import os
import sys
from pathlib import Path

import pytest
from scrapy.downloadermiddlewares.redirect import RedirectMiddleware
from scrapy.exceptions import IgnoreRequest, NotConfigured
from scrapy.http import Request, Response
from scrapy.resolver import dnscache

from landing.crawl import guard
from landing.crawl.failed_visits import exception_failure
from landing.crawl.guard import AddressGuardMiddleware, ForbiddenAddress, Unresolved
from tests import forked
from tests.crawl.project import crawler
from tests.local_http import serving

ROOT = Path(__file__).resolve().parents[2]


def check(middleware, url):
    """process_request's outcome: None when allowed, the refusal (ForbiddenAddress, Unresolved) when refused."""
    try:
        return asyncio.run(middleware.process_request(Request(url)))
    except (ForbiddenAddress, Unresolved) as refusal:
        return refusal


@pytest.fixture
def made():
    return crawler()


@pytest.fixture
def mw(made):
    return AddressGuardMiddleware.from_crawler(made)


@pytest.fixture(autouse=True)
def clean_dnscache():
    """Scrapy's DNS cache is process-wide: drop whatever a test pinned in it."""
    before = dict(dnscache)
    yield
    dnscache.clear()
    dnscache.update(before)


@pytest.mark.parametrize(
    "url,message,reason",
    [
        ("http://127.0.0.1/", "refused: 127.0.0.1 (loopback)", "loopback"),
        ("http://[::1]/", "refused: ::1 (loopback)", "loopback"),
        ("http://169.254.169.254/latest/meta-data", "refused: 169.254.169.254 (cloud-metadata)", "cloud-metadata"),
        ("http://10.1.2.3/", "refused: 10.1.2.3 (private)", "private"),
        ("http://localhost:8080/", "refused: localhost (loopback)", "loopback"),
        (
            "https://metadata.google.internal/computeMetadata/v1/",
            "refused: metadata.google.internal (cloud-metadata)",
            "cloud-metadata",
        ),
        ("http://2130706433/", "refused: 2130706433 is 127.0.0.1 (loopback)", "loopback"),
        ("http://0x7f.1/", "refused: 0x7f.1 is 127.0.0.1 (loopback)", "loopback"),
        (
            "http://[::ffff:169.254.169.254]/",
            "refused: ::ffff:169.254.169.254 is ::ffff:a9fe:a9fe (cloud-metadata)",
            "cloud-metadata",
        ),
    ],
)
def test_refused_with_host_address_and_reason(made, mw, url, message, reason):
    refusal = check(mw, url)
    assert isinstance(refusal, IgnoreRequest) and str(refusal) == message and refusal.reason == reason
    assert made.stats.get_value(f"landing/refused/{reason}") == 1


def test_a_name_resolving_to_loopback_is_refused_through_the_real_resolver(monkeypatch, mw):
    monkeypatch.setattr(guard, "local_name", lambda host: None)  # so that "localhost" goes to the resolver
    refusal = check(mw, "http://localhost/")
    assert str(refusal) == "refused: localhost resolves to 127.0.0.1 (loopback)"


@pytest.mark.parametrize(
    "url",
    [
        "http://93.184.215.14/",
        "https://[2606:4700::6810:84e5]/x",
        "data:,hello",
        "file:///etc/passwd",
        "s3://bucket/key",
    ],
)
def test_public_literals_and_other_schemes_pass_without_dns(made, mw, url):
    assert check(mw, url) is None
    assert not any(key.startswith("landing/refused/") for key in made.stats.get_stats())


def test_a_name_that_does_not_resolve_is_refused_as_dns_not_left_to_resolve_again_unchecked():
    refusal = check(AddressGuardMiddleware.from_crawler(crawler(DNS_TIMEOUT=5)), "http://nowhere.invalid/")
    assert (type(refusal), exception_failure(refusal, ["http://nowhere.invalid/"])) == (Unresolved, "dns")


def test_a_lookup_with_no_answer_a_timeout_included_is_refused_as_dns_and_asked_again_next_time(monkeypatch, mw):
    answers(monkeypatch, mw, {})  # lookup() answers () for a failure and a timeout alike
    assert isinstance(check(mw, "https://gone.example/"), Unresolved) and "gone.example" not in mw.cache


@pytest.mark.parametrize(
    "url",
    ["http://public.example@10.0.0.5/", "https://user:pass@example.org/", "http://93.184.215.14@169.254.169.254/"],
)
def test_a_url_carrying_userinfo_is_refused(mw, url):
    refusal = check(mw, url)
    assert (type(refusal), refusal.reason) == (ForbiddenAddress, "userinfo")


def answers(monkeypatch, mw, table):
    async def lookup(host):
        return table.get(host, ())

    monkeypatch.setattr(mw, "_lookup", lookup)


def test_any_forbidden_answer_refuses(monkeypatch, mw):
    answers(monkeypatch, mw, {"example.internal": ("93.184.215.14", "10.0.0.5")})
    assert str(check(mw, "https://example.internal/a")) == "refused: example.internal resolves to 10.0.0.5 (private)"


def test_the_checked_answer_is_pinned_in_scrapys_dns_cache(monkeypatch, mw):
    answers(monkeypatch, mw, {"example.org": ("2606:4700::1", "93.184.215.14")})
    assert check(mw, "https://example.org/") is None
    assert dnscache["example.org"] == "93.184.215.14"  # the IPv4 answer CachingThreadedResolver connects to


def test_a_host_with_only_ipv6_answers_is_refused_as_dns_when_scrapys_resolver_would_look_up_ipv4_unchecked(
    monkeypatch, mw
):
    answers(monkeypatch, mw, {"v6only.example": ("2606:4700::1",)})
    refusal = check(mw, "https://v6only.example/")
    assert (type(refusal), "v6only.example" in dnscache) == (Unresolved, False)


def test_a_host_with_only_ipv6_answers_goes_ahead_when_no_ipv4_pin_is_made(monkeypatch):
    mw = AddressGuardMiddleware.from_crawler(crawler(DNSCACHE_ENABLED=False))
    answers(monkeypatch, mw, {"v6only.example": ("2606:4700::1",)})
    assert check(mw, "https://v6only.example/") is None


def test_a_rebound_answer_is_not_seen_within_the_crawl(monkeypatch, mw):
    table = {"rebind.example": ("93.184.215.14",)}
    answers(monkeypatch, mw, table)
    assert check(mw, "https://rebind.example/1") is None
    table["rebind.example"] = ("127.0.0.1",)
    assert check(mw, "https://rebind.example/2") is None
    assert dnscache["rebind.example"] == "93.184.215.14"


def test_a_forbidden_address_already_in_scrapys_dns_cache_refuses(monkeypatch, mw):
    answers(monkeypatch, mw, {"rebind.example": ("93.184.215.14",)})
    dnscache["rebind.example"] = "10.9.8.7"
    assert str(check(mw, "https://rebind.example/")) == "refused: rebind.example resolves to 10.9.8.7 (private)"


def test_no_pin_when_scrapys_dns_cache_is_off(monkeypatch):
    mw = AddressGuardMiddleware.from_crawler(crawler(DNSCACHE_ENABLED=False))
    answers(monkeypatch, mw, {"example.org": ("93.184.215.14",)})
    assert check(mw, "https://example.org/") is None and "example.org" not in dnscache


def test_the_answer_cache_is_bounded(monkeypatch):
    mw = AddressGuardMiddleware.from_crawler(crawler(DNSCACHE_SIZE=2))
    answers(monkeypatch, mw, {f"h{i}.example": ("93.184.215.14",) for i in range(3)})
    for i in range(3):
        check(mw, f"https://h{i}.example/")
    assert list(mw.cache) == ["h1.example", "h2.example"]


def test_a_redirect_hop_is_checked(made, mw):
    first = Request("https://publisher.example/article")
    response = Response(
        first.url, status=302, headers={"Location": "http://169.254.169.254/latest/meta-data/"}, request=first
    )
    hop = RedirectMiddleware.from_crawler(made).process_response(first, response)
    refusal = check(mw, hop.url)
    assert hop.meta["redirect_urls"] == [first.url] and refusal.reason == "cloud-metadata"


@pytest.mark.parametrize(
    "settings",
    [
        {"LANDING_SANDBOX": "http://127.0.0.1:8700"},
        {"LANDING_SANDBOX": "http://localhost:8700"},
        {"LANDING_ADDRESS_GUARD": False},
    ],
)
def test_not_configured_under_a_sandbox_on_this_machine_or_when_turned_off(settings):
    with pytest.raises(NotConfigured):
        AddressGuardMiddleware.from_crawler(crawler(**settings))


def test_a_sandbox_on_this_machine_says_the_guard_is_off(caplog):
    with pytest.raises(NotConfigured):
        AddressGuardMiddleware.from_crawler(crawler(LANDING_SANDBOX="http://127.0.0.1:8700"))
    assert "LANDING_SANDBOX=http://127.0.0.1:8700 is a sandbox on this machine: the address guard is off" in caplog.text


@pytest.mark.parametrize("proxy", ["http://proxy.corp.example:3128", "http://10.0.0.5:8080"])
def test_a_sandbox_url_elsewhere_such_as_a_real_proxy_never_turns_the_guard_off(proxy, caplog):
    middleware = AddressGuardMiddleware.from_crawler(crawler(LANDING_SANDBOX=proxy))
    assert (
        check(middleware, "http://169.254.169.254/latest/meta-data/").reason,
        "the address guard stays on" in caplog.text,
    ) == ("cloud-metadata", True)


# A real crawl, in a subprocess (Scrapy installs a reactor once per process), against a server on 127.0.0.1.

CRAWL = """
import json, sys
import scrapy
from scrapy.crawler import AsyncCrawlerProcess
import landing.settings as project

class Probe(scrapy.Spider):
    name = "probe"

    async def start(self):
        for url in sys.argv[1:]:
            yield scrapy.Request(url, errback=self.failed)

    def parse(self, response):
        print(json.dumps({"url": response.url, "status": response.status}))

    def failed(self, failure):
        print(json.dumps({"url": failure.request.url, "error": type(failure.value).__name__,
                          "message": failure.getErrorMessage()}))

settings = {name: getattr(project, name) for name in dir(project) if name.isupper()}
settings.update(ITEM_PIPELINES={}, EXTENSIONS={}, LOG_LEVEL="WARNING", TELNETCONSOLE_ENABLED=False,
                DOWNLOADER_MIDDLEWARES={**project.DOWNLOADER_MIDDLEWARES, "landing.crawl.guard.AddressGuardMiddleware": 80})
process = AsyncCrawlerProcess(settings)
crawler = process.create_crawler(Probe)
process.crawl(crawler)
process.start()
print(json.dumps({"stats": {k: v for k, v in crawler.stats.get_stats().items() if k.startswith("landing/refused/")}}))
"""


@pytest.fixture
def local_server():
    with serving(lambda path: (302, {"Location": "http://169.254.169.254/latest/meta-data/"}, b"")) as (port, hits):
        yield f"127.0.0.1:{port}", hits


def test_a_real_crawl_refuses_a_local_server_before_any_request_reaches_it(local_server):
    address, hits = local_server
    urls = [f"http://{address}/page", f"http://localhost:{address.split(':')[1]}/page"]
    done = forked.run([sys.executable, "-c", CRAWL, *urls], ROOT, os.environ, 60)
    assert done.returncode == 0, done.stderr[-3000:]
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    failed = {line["url"]: line for line in lines if "url" in line}
    assert failed[urls[0]] == {"url": urls[0], "error": "ForbiddenAddress", "message": "refused: 127.0.0.1 (loopback)"}
    assert failed[urls[1]]["message"] == "refused: localhost (loopback)"
    assert lines[-1]["stats"] == {"landing/refused/loopback": 2}
    assert hits == []  # not even robots.txt: the guard runs before RobotsTxtMiddleware
    assert "refused: 127.0.0.1 (loopback)" in done.stderr  # logged as a warning
