"""The browser and auto drivers with a real headless Chromium (Debian's) on a world of hostile scenarios.

`make test` installs Chromium when it is missing; where it cannot be installed these tests skip and say why.
"""

import os
import re
from collections import Counter
from contextlib import closing

import pytest

from landing.core.publishing.current_analysis import current
from landing.core.web.failures import BROWSER_CLASSES
from landing_dev.sandbox import scenarios
from landing_dev.sandbox.generator import generate
from landing_dev.sandbox.server import RunningSandbox
from tests.sampler.crawling import Stores, at_once, disagreements, truth_of

CHROMIUM = "/usr/bin/chromium"
HOSTILE = [
    "direct",
    "meta-refresh",
    "js-redirect",
    "js-computed",
    "cookie-wall",
    "challenge",
    "redirect-loop",
    "too-large",
    "robots-disallowed",
]

pytestmark = pytest.mark.skipif(
    not os.access(CHROMIUM, os.X_OK),
    reason=f"no Chromium at {CHROMIUM}: `make test` installs Debian's chromium "
    "where apt-get runs as root; here it could not",
)


@pytest.fixture(scope="module")
def hostile(tmp_path_factory):
    directory = tmp_path_factory.mktemp("hostile")
    # 4 DOIs of each scenario: every claim here is made per scenario (or per DOI), so more of each only repeats it.
    generate(directory, 4 * len(HOSTILE), seed=4, only=HOSTILE)
    running = RunningSandbox(directory)
    yield truth_of(directory), running
    running.close()


@pytest.fixture(scope="module")
def crawls(hostile, request, tmp_path_factory):
    """The module's crawls that this session's tests use, run at once (tests.sampler.crawling.at_once)."""
    truth, sandbox = hostile

    def on_hostile(driver, *extra):
        stores = Stores(tmp_path_factory.mktemp(f"driver-{driver}"))
        return lambda: (truth, stores, stores.crawl(sandbox.proxy, "-s", f"LANDING_DRIVER={driver}", *extra))

    def on_every_scenario():
        """auto on a world of every scenario, 4 DOIs each (the claims are per scenario and per DOI, as in `hostile`)."""
        directory, stores = tmp_path_factory.mktemp("every-4"), Stores(tmp_path_factory.mktemp("every-auto"))
        generate(directory, 4 * len(scenarios.ALL), seed=11, only=list(scenarios.ALL))

        def crawl():
            with closing(RunningSandbox(directory)) as every:
                return truth_of(directory), stores, stores.crawl(every.proxy, "-s", "LANDING_DRIVER=auto")

        return crawl

    def on_logged_computed():
        """auto on script-computed redirects only, every request the sandbox answered kept."""
        directory, stores = tmp_path_factory.mktemp("computed"), Stores(tmp_path_factory.mktemp("computed-auto"))
        generate(directory, 4, seed=5, only=["js-computed"])

        def crawl():
            answered = []
            with closing(RunningSandbox(directory, log=answered.append)) as world:
                return truth_of(directory), stores, stores.crawl(world.proxy, "-s", "LANDING_DRIVER=auto"), answered

        return crawl

    prepared = {
        "logged_computed_auto_crawl": on_logged_computed,
        "http_crawl": lambda: on_hostile("http"),
        "auto_crawl": lambda: on_hostile("auto"),
        # auto with HTTP cookies off: as a site whose cookie only a script sets leaves a plain client.
        "cookieless_auto_crawl": lambda: on_hostile("auto", "-s", "COOKIES_ENABLED=False"),
        # Every page through Chromium, six crawls at once on 2 cores: a redirect loop's twenty hops may take longer than
        # the default 30 s on a loaded machine, and no page of this world is slow by design.
        "browser_crawl": lambda: on_hostile("browser", "-s", "DOWNLOAD_TIMEOUT=120"),
        "every_auto_crawl": on_every_scenario,
    }
    with at_once(request, prepared) as started:
        yield started


@pytest.fixture(scope="module")
def http_crawl(crawls):
    return crawls["http_crawl"].result()


@pytest.fixture(scope="module")
def auto_crawl(crawls):
    return crawls["auto_crawl"].result()


@pytest.fixture(scope="module")
def cookieless_auto_crawl(crawls):
    return crawls["cookieless_auto_crawl"].result()


@pytest.fixture(scope="module")
def browser_crawl(crawls):
    return crawls["browser_crawl"].result()


@pytest.fixture(scope="module")
def logged_computed_auto_crawl(crawls):
    return crawls["logged_computed_auto_crawl"].result()


@pytest.fixture(scope="module")
def every_auto_crawl(crawls):
    return crawls["every_auto_crawl"].result()


def auto_expected(t: dict) -> tuple[str | None, str | None]:
    """(final URL, error class) auto should reach: the cookie-keeping plain client's, which also follows literal
    script redirects; the browser's where that client is left needing a browser."""
    client = "browser" if t["scenario"] == "js-redirect" or t["cookie_error"] in BROWSER_CLASSES else "cookie"
    return t[f"{client}_final_url"], t[f"{client}_error"]


def _outcomes(analyses, truth, client):
    """(scenario, doi, got, want) for each DOI whose final URL or error differs from the truth client's.

    Our browser obeys robots.txt (the truth's browser does not): a landing page it disallows is `robots`.
    """
    wrong = []
    for doc in analyses:
        t = truth[doc["pid/doi"]]
        want = (t[f"{client}_final_url"], t[f"{client}_error"])
        if client == "browser" and t["robots_disallowed"]:
            want = (None, "robots")
        got = (doc["snapshot/final-url"] if doc["snapshot/error"] is None else None, doc["snapshot/error"])
        if got != want:
            wrong.append((t["scenario"], doc["pid/doi"], got, want))
    return wrong


def test_http_reaches_every_plain_and_cookie_wall_page_and_names_what_it_cannot(http_crawl):
    truth, stores, _ = http_crawl
    analyses = stores.export("analysis")
    by_scenario = Counter((truth[d["pid/doi"]]["scenario"], d["snapshot/error"]) for d in analyses)
    for scenario in ("direct", "meta-refresh", "js-redirect", "cookie-wall"):
        assert by_scenario[(scenario, None)] > 0 and not any(s == scenario and error for (s, error) in by_scenario), (
            by_scenario
        )
    assert {error for (s, error) in by_scenario if s in ("js-computed", "challenge")} == {"js-required", "challenge"}


def test_auto_reaches_what_the_browser_truth_reaches_and_sends_only_those_that_need_it(auto_crawl):
    truth, stores, done = auto_crawl
    analyses = stores.export("analysis")
    assert _outcomes(current(analyses), truth, "browser") == []
    browser = [d for d in analyses if d["snapshot/driver"] == "browser"]
    assert sorted(truth[d["pid/doi"]]["scenario"] for d in browser) == sorted(
        t["scenario"]
        for doi, t in truth.items()
        if t["scenario"] in ("js-computed", "challenge") and any(a["pid/doi"] == doi for a in analyses)
    )
    assert f"'landing/browser/sent': {len(browser)}," in done.stderr


def test_auto_on_every_scenario_reaches_each_page_truth_expects_and_analyses_it_as_truth_does(every_auto_crawl):
    truth, stores, _ = every_auto_crawl
    analyses = list(current(stores.export("analysis")))
    assert {truth[d["pid/doi"]]["scenario"] for d in analyses} == {t["scenario"] for t in truth.values()}
    assert disagreements(analyses, truth, auto_expected, reachable=True) == []


def test_auto_on_every_scenario_leaves_each_failing_doi_with_the_class_truth_expects(every_auto_crawl):
    truth, stores, _ = every_auto_crawl
    analyses = list(current(stores.export("analysis")))
    assert any(auto_expected(truth[d["pid/doi"]])[1] for d in analyses)
    assert disagreements(analyses, truth, auto_expected, reachable=False) == []


def test_auto_starts_one_playwright_for_both_schemes(auto_crawl):
    _, _, done = auto_crawl
    assert done.stderr.count("Starting download handler") == 1
    assert "'playwright/browser_count': 1," in done.stderr


def test_auto_starts_no_browser_when_no_doi_needs_one(tmp_path):
    generate(tmp_path / "world", 12, seed=5, only=["direct", "meta-refresh", "js-redirect", "cookie-wall"])
    sandbox = RunningSandbox(tmp_path / "world")
    try:
        done = Stores(tmp_path / "stores").crawl(sandbox.proxy, "-s", "LANDING_DRIVER=auto")
    finally:
        sandbox.close()
    assert "'landing/browser/sent'" not in done.stderr
    assert "Starting download handler" not in done.stderr and "playwright/" not in done.stderr


def test_without_cookies_http_names_cookie_walls_cookie_required_as_the_plain_client_truth_does(cookieless_auto_crawl):
    truth, stores, _ = cookieless_auto_crawl
    http = [
        d
        for d in stores.export("analysis")
        if d["snapshot/driver"] == "http" and truth[d["pid/doi"]]["scenario"] == "cookie-wall"
    ]
    assert http and {d["snapshot/error"] for d in http} == {"cookie-required"}
    assert {truth[d["pid/doi"]]["error"] for d in http} == {"cookie-required"}  # the plain client's


def test_without_cookies_auto_sends_cookie_walls_to_the_browser_and_reaches_them(cookieless_auto_crawl):
    truth, stores, _ = cookieless_auto_crawl
    analyses = stores.export("analysis")
    assert _outcomes(current(analyses), truth, "browser") == []
    sent = {truth[d["pid/doi"]]["scenario"] for d in analyses if d["snapshot/driver"] == "browser"}
    assert sent == {"cookie-wall", "js-computed", "challenge"}


def test_auto_keeps_both_attempts_of_a_doi_it_sent_to_the_browser(auto_crawl):
    truth, stores, _ = auto_crawl
    drivers = Counter()
    for doc in stores.export("snapshot"):
        drivers[doc["pid/doi"]] += 1
        if doc["snapshot/driver"] == "http" and truth[doc["pid/doi"]]["scenario"] == "js-computed":
            assert doc["snapshot/error"] == "js-required"  # what HTTP saw stays on record beside the browser's
    sent = {d for d, t in truth.items() if t["scenario"] in ("js-computed", "challenge")} & set(drivers)
    assert sent and all(drivers[doi] == 2 for doi in sent)


def test_auto_hands_chromium_the_resource_url_and_asks_the_resolver_once_per_doi(logged_computed_auto_crawl):
    truth, stores, _, answered = logged_computed_auto_crawl
    browsed = [doc for doc in stores.export("snapshot") if doc["snapshot/driver"] == "browser"]
    assert len(browsed) == len(truth) == 4
    for doc in browsed:
        resolver, resource = f"https://doi.org/{doc['pid/doi']}", truth[doc["pid/doi"]]["resource_url"]
        assert [line for line in answered if line.startswith(f"GET {resolver} ")] == [f"GET {resolver} -> 302"]
        assert [line for line in answered if line.startswith(f"GET {resource} ")] == [f"GET {resource} -> 200"] * 2
        assert [hop["url"] for hop in doc["snapshot/hops"]][:2] == [resolver, resource]
        assert doc["snapshot/hops"][0]["status"] == 302
        assert doc["snapshot/final-url"] == truth[doc["pid/doi"]]["browser_final_url"]


def test_the_requests_counted_agree_with_the_sandboxs_log_chromiums_included(logged_computed_auto_crawl):
    # Chromium's requests (the page's redirects and scripts, robots.txt through its context) are counted with
    # Scrapy's in landing/requests, the count the budget reads (landing.crawl.sent_requests). Not Chromium's component updater
    # (update.googleapis.com), which --disable-component-update does not silence and no page event shows.
    _, _, done, answered = logged_computed_auto_crawl
    sent = [line for line in answered if "://update.googleapis.com/" not in line]
    counted = int(re.findall(r"'landing/requests': (\d+)", done.stderr)[-1])
    assert abs(counted - len(sent)) <= 0.02 * len(sent), (counted, sent)


def test_browser_agrees_with_the_browser_truth_for_every_doi(browser_crawl):
    truth, stores, _ = browser_crawl
    analyses = stores.export("analysis")
    assert analyses and {d["snapshot/driver"] for d in analyses} == {"browser"}
    assert _outcomes(analyses, truth, "browser") == []


def test_the_browser_records_every_hop_redirects_and_client_side_moves(browser_crawl):
    truth, stores, _ = browser_crawl
    moved = Counter()
    for doc in stores.export("snapshot"):
        scenario, hops = truth[doc["pid/doi"]]["scenario"], doc["snapshot/hops"]
        assert hops[0]["url"].startswith("https://doi.org/") and hops[0]["status"] == 302
        if scenario in ("js-redirect", "js-computed", "meta-refresh") and doc["snapshot/error"] is None:
            assert [hop.get("kind") for hop in hops].count("client-redirect") == 1, hops
            assert hops[-1]["url"] == doc["snapshot/final-url"]
            moved[scenario] += 1
    assert set(moved) == {"js-redirect", "js-computed", "meta-refresh"}, moved  # each kind of move was checked


def test_browser_visits_borrow_contexts_kept_for_the_crawl_no_more_than_the_browser_pages(browser_crawl):
    # Each visit still has a context to itself, emptied when it ends (tests/browser/test_driver.py shows it).
    import re

    from landing.settings import LANDING_BROWSER_PAGES

    _, stores, done = browser_crawl
    visits = len(stores.export("snapshot"))
    made = int(re.search(r"'playwright/context_count': (\d+),", done.stderr)[1])
    most = int(re.search(r"'playwright/context_count/max_concurrent': (\d+),", done.stderr)[1])
    assert (made < visits, most <= LANDING_BROWSER_PAGES) == (True, True)
    assert "Traceback" not in done.stderr


def test_auto_ends_with_a_progress_line_that_counts_each_doi_once_even_those_sent_to_the_browser(auto_crawl):
    _, stores, done = auto_crawl
    dois = {d["pid/doi"] for d in stores.export("analysis")}
    last = [line for line in done.stderr.splitlines() if "progress: " in line][-1]
    failed = sum(1 for d in current(stores.export("analysis")) if d["snapshot/error"])
    assert "'landing/browser/sent': " in done.stderr
    assert f" {len(dois)} visited ({len(dois) - failed} pages, {failed} failed), " in last
    assert f", 100.0% of its {len(dois)} DOIs visited" in last
