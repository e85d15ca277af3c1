"""landing.browser.rules: what Chromium may fetch by itself is judged as Scrapy's own requests are."""

import asyncio
from types import SimpleNamespace

import pytest

from landing.browser.rules import BrowserRules, stopped
from landing.core.web.robots_policy import RobotsPolicy
from landing.settings import DOWNLOADER_MIDDLEWARES
from tests.browser.probe import needs_chromium, visit
from tests.local_http import serving

NO_ROBOTS = RobotsPolicy(obey=False)


def _aborts(url, resource_type="document", **rules):
    request = SimpleNamespace(url=url, resource_type=resource_type, is_navigation_request=lambda: True, frame=None)
    return asyncio.run(BrowserRules(**{"guard": True, "robots": NO_ROBOTS, **rules})(request))


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1:8080/",
        "http://169.254.169.254/latest/meta-data/",
        "http://localhost/",
        "https://10.0.0.7/x",
        "http://[::1]/",
        "http://metadata.google.internal/",
    ],
)
def test_a_browser_request_to_a_forbidden_host_is_aborted(url):
    assert _aborts(url) is True


def test_an_aborted_request_says_why_for_the_visit_to_name():
    _aborts("http://169.254.169.254/latest/meta-data/")
    assert stopped("http://169.254.169.254/latest/meta-data/") == (
        "refused-address",
        "refused: 169.254.169.254 (cloud-metadata)",
        "landing/refused/cloud-metadata",
    )


def test_a_redirect_to_the_metadata_service_is_found_after_the_fact():
    hops = [
        {"url": "https://93.184.215.14/doi/1", "status": 302},
        {"url": "http://169.254.169.254/latest/", "status": 200},
    ]
    found = asyncio.run(BrowserRules(guard=True, robots=NO_ROBOTS).after_the_fact(hops, None))
    assert found == (
        "http://169.254.169.254/latest/",
        ("refused-address", "refused: 169.254.169.254 (cloud-metadata)", "landing/refused/cloud-metadata"),
    )


def test_a_page_a_script_moved_on_from_is_not_judged_after_the_fact():
    # Only a server's 3xx escapes the rules; a script's navigation was asked about when it happened.
    hops = [
        {"url": "https://93.184.215.14/doi/1", "status": 200, "kind": "client-redirect"},
        {"url": "http://169.254.169.254/latest/", "status": 200},
    ]
    assert asyncio.run(BrowserRules(guard=True, robots=NO_ROBOTS).after_the_fact(hops, None)) is None


def test_a_browser_request_to_a_public_literal_address_goes_ahead():
    assert _aborts("https://93.184.215.14/article") is False


def test_without_the_guard_a_local_address_goes_ahead():
    assert _aborts("http://127.0.0.1:8080/", guard=False) is False


def test_a_picture_is_skipped_wherever_it_is():
    assert _aborts("https://93.184.215.14/figure.png", resource_type="image", guard=False) is True


def test_a_script_fetch_to_the_metadata_service_is_aborted_too():
    assert _aborts("http://169.254.169.254/latest/api/token", resource_type="fetch") is True


# A real Chromium, driven by scrapy-playwright, with Scrapy's own guard taken out so that only the browser's can
# stop the visit; a local server stands for the sites.

FORWARD = (
    b"<html><body><p>Moving on.</p><script>setTimeout(function () { location.href = '/private/page'; }, 10)"
    b"</script></body></html>"
)


def _site(path):
    if path == "/robots.txt":
        return 200, {"Content-Type": "text/plain"}, b"User-agent: *\nDisallow: /private/\n"
    if path == "/forward":
        return 200, {"Content-Type": "text/html"}, FORWARD
    if path == "/jump":
        return 302, {"Location": "/private/page"}, b""
    return (
        200,
        {"Content-Type": "text/html"},
        b"<html><body><p>Only the crawling machine can see this.</p></body></html>",
    )


@pytest.fixture
def local_server():
    with serving(_site) as served:
        yield served


@needs_chromium
def test_chromium_never_reaches_a_local_server_and_the_visit_names_the_refusal(local_server):
    port, hits = local_server
    urls = [f"http://127.0.0.1:{port}/page", f"http://localhost:{port}/page"]
    visits = visit(
        urls, DOWNLOADER_MIDDLEWARES={**DOWNLOADER_MIDDLEWARES, "landing.crawl.guard.AddressGuardMiddleware": None}
    )
    assert visits[urls[0]]["how"] == "failed"
    assert visits[urls[0]]["stop"] == [urls[0], "refused-address", "refused: 127.0.0.1 (loopback)"]
    assert visits[urls[1]]["stop"] == [urls[1], "refused-address", "refused: localhost (loopback)"]
    assert hits == []


@pytest.fixture(scope="module")
def robots_obeyed():
    """One crawl obeying robots.txt (guard off) of a script navigation and of a server redirect, each on a server of
    its own; {path: (the visit, the paths its server was asked)}."""
    with serving(_site) as (forward_port, forward_hits), serving(_site) as (jump_port, jump_hits):
        urls = {"/forward": f"http://127.0.0.1:{forward_port}/forward", "/jump": f"http://127.0.0.1:{jump_port}/jump"}
        visits = visit(list(urls.values()), LANDING_ADDRESS_GUARD=False, ROBOTSTXT_OBEY=True)
        return {"/forward": (visits[urls["/forward"]], forward_hits), "/jump": (visits[urls["/jump"]], jump_hits)}


@needs_chromium
def test_a_script_navigation_robots_txt_forbids_is_stopped_and_named_robots(robots_obeyed):
    visited, hits = robots_obeyed["/forward"]
    private = visited["url"].replace("/forward", "/private/page")
    assert visited["stop"] == [private, "robots", f"Forbidden by robots.txt: {private}"]
    assert "/robots.txt" in hits and not any(hit.startswith("/private/") for hit in hits)


@needs_chromium
def test_a_server_redirect_chromium_follows_unasked_is_judged_after_the_fact_and_the_page_discarded(robots_obeyed):
    # Playwright routes only a redirect chain's first request: the rules see the 302's target only afterwards.
    visited, _ = robots_obeyed["/jump"]
    private = visited["url"].replace("/jump", "/private/page")
    assert visited["stop"] == [private, "robots", f"Forbidden by robots.txt: {private}"]


@needs_chromium
def test_without_robots_txt_obeyed_the_script_navigation_goes_ahead(local_server):
    port, hits = local_server
    url = f"http://127.0.0.1:{port}/forward"
    visits = visit([url], LANDING_ADDRESS_GUARD=False, ROBOTSTXT_OBEY=False)
    assert visits[url]["stop"] is None
    assert visits[url]["hops"][-1] == {"url": f"http://127.0.0.1:{port}/private/page", "status": 200}


def _settings(**values):
    from scrapy.settings import Settings

    from landing import settings as project

    settings = Settings()
    settings.setmodule(project)
    settings.setdict(values)
    return settings


def _rules(**values) -> BrowserRules:
    from landing.config import of_settings

    settings = _settings(**values)
    return BrowserRules.from_settings(settings, of_settings(settings))


def test_rules_from_the_project_settings_guard_addresses_and_obey_robots_txt():
    rules = _rules()
    assert (rules.guard, rules.robots.obey, rules.robots.obey_resolver) == (True, True, False)
    assert "doi.org" in rules.robots.resolver_hosts
    assert rules.user_agent.startswith("landing/")


def test_rules_under_the_sandbox_do_not_guard_addresses():
    assert _rules(LANDING_SANDBOX="http://127.0.0.1:1").guard is False


def test_rules_under_a_sandbox_url_elsewhere_such_as_a_real_proxy_still_guard_addresses():
    assert _rules(LANDING_SANDBOX="http://proxy.corp.example:3128").guard is True


def test_rules_ask_robots_txt_on_the_resolver_only_when_told_to():
    ignoring, obeying = (_rules(LANDING_RESOLVER_ROBOTS=value).robots for value in ("ignore", "obey"))
    assert (ignoring.governs("https://doi.org/10.1/a"), obeying.governs("https://doi.org/10.1/a")) == (False, True)


def test_a_named_host_is_judged_by_its_answer_looked_up_once_for_routing_and_the_proxy(monkeypatch):
    from landing.browser import rules as rules_module

    asked = []

    async def lookup(host, timeout):
        asked.append(host)
        return {"intranet.example": ("10.0.0.5",), "journal.example": ("93.184.215.14",)}.get(host, ())

    monkeypatch.setattr(rules_module, "lookup", lookup)
    rules = BrowserRules(guard=True, robots=NO_ROBOTS)

    async def judged():
        return [
            await rules.verdict("http://intranet.example/", None, navigation=False),
            await rules.verdict("https://journal.example/a", None, navigation=False),
            await rules.answers("journal.example"),
        ]

    refused, allowed, answer = asyncio.run(judged())
    assert refused == (
        "refused-address",
        "refused: intranet.example resolves to 10.0.0.5 (private)",
        "landing/refused/private",
    )
    assert (allowed, answer, asked) == (None, ("93.184.215.14",), ["intranet.example", "journal.example"])


def test_a_robots_txt_fetch_is_named_under_way_through_its_context_until_it_ends():
    # A visit's context is emptied for the next visit only once these end (their responses may set its cookies).
    rules = BrowserRules(guard=False, robots=RobotsPolicy(obey=True))

    async def asked():
        answer = asyncio.Event()

        async def get(url, timeout, max_redirects):
            await answer.wait()
            return SimpleNamespace(status=404)

        context, other = SimpleNamespace(request=SimpleNamespace(get=get)), SimpleNamespace()
        asking = asyncio.ensure_future(rules.verdict("https://journal.example/a", context, navigation=True))
        await asyncio.sleep(0)
        during = (len(rules.fetching(context)), len(rules.fetching(other)))
        answer.set()
        return during, await asking, rules.fetching(context)

    assert asyncio.run(asked()) == ((1, 0), None, set())


def _plain(value) -> bool:
    if isinstance(value, dict):
        return all(_plain(k) and _plain(v) for k, v in value.items())
    if isinstance(value, list | tuple):
        return all(_plain(v) for v in value)
    return value is None or isinstance(value, str | int | float | bool)


def test_a_browser_crawl_holds_its_rules_outside_its_settings_one_object_for_the_crawl():
    from scrapy.utils.test import get_crawler

    from landing.browser.driver import HANDLER
    from landing.browser.rules import rules_of
    from landing.sampler.doi_sampler import DoiSamplerSpider
    from tests.crawl.project import PROJECT

    crawler = get_crawler(DoiSamplerSpider, {**PROJECT, "LANDING_DRIVER": "browser", "LANDING_CHROMIUM": "/bin/true"})
    settings = crawler.settings.copy_to_dict()
    assert settings["DOWNLOAD_HANDLERS"]["https"] == HANDLER
    assert settings.get("PLAYWRIGHT_ABORT_REQUEST") is None
    assert [name for name, value in settings.items() if name.startswith("PLAYWRIGHT_") and not _plain(value)] == []
    assert rules_of(crawler) is rules_of(crawler)
    assert rules_of(crawler).guard is True
