"""The sampler end to end: a real crawl of a generated world agrees with the world's truth.jsonl.

The HTTP driver keeps one cookie jar per DOI chain, so the truth to compare with is the cookie-keeping
reference client's (`cookie_final_url`, `cookie_error`); except that it also follows script redirects to a
literal URL, so for those pages it is the browser's (`browser_final_url`, `browser_error`).
"""

import json
import time
from collections import Counter
from urllib.parse import urlsplit

import pytest

from landing.core.registries.names import Names
from landing.core.registries.names import read as names_in
from tests.sampler.crawling import RESOLVER, Stores, disagreements, truth_of


@pytest.fixture(scope="module", params=["mixed", "every"])
def crawled(request, mixed_world, every_scenario_world):
    """(analysis docs, truth by DOI, stores) of one crawled world."""
    if request.param == "mixed":
        stores, _ = request.getfixturevalue("mixed_crawl")
        world = mixed_world
    else:
        stores, _ = request.getfixturevalue("every_crawl")
        world = every_scenario_world
    return stores.export("analysis"), truth_of(world), stores


def expected(t: dict) -> tuple[str | None, str | None]:
    """(final URL, error class) the HTTP driver should reach for a DOI of truth."""
    client = "browser" if t["scenario"] == "js-redirect" else "cookie"
    return t[f"{client}_final_url"], t[f"{client}_error"]


def _disagreements(docs, truth, reachable: bool):
    return disagreements(docs, truth, expected, reachable)


def test_every_sampled_doi_has_one_pid_one_snapshot_and_one_analysis(crawled):
    docs, truth, stores = crawled
    pids = stores.export("pid")
    assert len(pids) == len({p["pid/doi"] for p in pids}) == len(docs) == len({d["pid/doi"] for d in docs})
    assert len(stores.export("snapshot")) == len(docs)
    assert {d["pid/doi"] for d in docs} <= set(truth)


def test_pid_documents_carry_the_registration_agency_and_member_of_truth(crawled):
    docs, truth, stores = crawled
    for pid in stores.export("pid"):
        t = truth[pid["pid/doi"]]
        assert (pid["pid/ra"], pid["pid/member-id"], pid["pid/doi-prefix"]) == (t["ra"], t["member_id"], t["prefix"])
        assert pid["pid/global-member-id"] == f"{t['ra']}/{t['member_id']}"


def test_the_listings_names_reach_the_samples_pids_and_member_reports_of_a_crawl(mixed_crawl, mixed_world):
    stores, _ = mixed_crawl
    world = json.loads((mixed_world / "world.json").read_text())
    providers = {p["id"]: p["name"] for p in world["providers"]}
    expected = {f"crossref/{m['id']}": Names(m["primary-name"]) for m in world["members"]}
    expected |= {f"datacite/{c['id']}": Names(c["name"], *_provider(c["id"], providers)) for c in world["clients"]}
    samples = {f"{s['sample/ra']}/{s['sample/owner']}": names_in("sample", s) for s in stores.export("sample")}
    pids = {p["pid/global-member-id"]: names_in("pid", p) for p in stores.export("pid")}
    reports = {r["report/key"]: names_in("report", r) for r in stores.export("report") if r["report/kind"] == "member"}
    assert {key.split("/")[0] for key in pids} == {"crossref", "datacite"}
    assert samples == {key: expected[key] for key in samples}
    assert pids == reports == {key: expected[key] for key in pids}


def _provider(client: str, providers: dict) -> tuple[str, str]:
    provider = client.split(".")[0]
    return provider, providers[provider]


def test_reachable_pages_agree_with_truth_on_final_url_domain_and_analysis(crawled):
    docs, truth, _ = crawled
    assert sum(expected(truth[d["pid/doi"]])[1] is None for d in docs) > 0
    assert _disagreements(docs, truth, reachable=True) == []


def test_unreachable_pages_carry_the_failure_class_truth_expects(crawled):
    docs, truth, _ = crawled
    assert _disagreements(docs, truth, reachable=False) == []


def test_every_scenario_is_sampled_and_checked(every_crawl, every_scenario_world):
    stores, _ = every_crawl
    truth = truth_of(every_scenario_world)
    scenarios = Counter(truth[d["pid/doi"]]["scenario"] for d in stores.export("analysis"))
    assert set(scenarios) == {t["scenario"] for t in truth.values()}


def test_snapshot_records_every_hop_from_the_resolver_to_the_page(crawled):
    docs, truth, _ = crawled
    checked = 0
    for doc in docs:
        t = truth[doc["pid/doi"]]
        if t["error"] is not None or t["retried"]:  # truth keeps the cookie-less client's chain
            continue
        checked += 1
        urls = doc["snapshot/urls"]  # the seed's array of URL strings; statuses and kinds in snapshot/hops
        assert urls == [hop["url"] for hop in doc["snapshot/hops"]] and all(isinstance(url, str) for url in urls)
        assert urlsplit(urls[0]).hostname == "doi.org"
        assert doc["snapshot/resource-url"] == t["resource_url"]
        assert urls[-1] == doc["snapshot/final-url"]
        assert doc["snapshot/hops"][-1]["status"] == t["final_status"]
        hops = [{"url": hop["url"], "status": hop["status"]} for hop in doc["snapshot/hops"]]
        assert hops[-len(t["urls"]) :] == t["urls"]
        assert doc["snapshot/driver"] == "http" and len(doc["snapshot/content-hash"]) == 64
    assert checked >= len(docs) // 3  # the filter leaves much of the sample to check (every: half fail by design)


def test_failures_are_classed_with_the_names_the_issue_lists(every_crawl, every_scenario_world):
    stores, _ = every_crawl
    classes = {d["snapshot/error"] for d in stores.export("analysis")} - {None}
    assert classes == {
        "http-4xx",
        "http-5xx",
        "redirect-loop",
        "too-many-redirects",
        "too-large",
        "not-html",
        "robots",
        "challenge",
        "js-required",
    }


def test_crawl_log_shows_progress_lines_while_it_runs(every_crawl):
    _, done = every_crawl
    assert done.stderr.count("progress: ") >= 2


def test_crossref_requests_carry_mailto_when_it_is_set(small_sandbox, tmp_path):
    requests = []
    small_sandbox.server.log = requests.append
    try:
        # The smallest samples: every kind of API request is made, and few DOIs are visited after them.
        Stores(tmp_path).crawl(
            small_sandbox.proxy,
            *("-s", "LANDING_MAILTO=ops@example.org", "-s", "LANDING_SOURCES=crossref"),
            *("-s", "LANDING_SAMPLE_MIN=1", "-s", "LANDING_SAMPLE_MAX=1"),
        )
    finally:
        small_sandbox.server.log = None
    api = [line for line in requests if "api.crossref.org" in line]
    assert api and all("mailto=ops%40example.org" in line for line in api)
    assert not any("api.datacite.org" in line for line in requests)


def test_dois_reach_the_resolver_no_faster_than_landing_resolver_rate(small_sandbox, tmp_path):
    heard = []
    small_sandbox.server.log = lambda line: heard.append((time.monotonic(), line))
    try:
        Stores(tmp_path).crawl(small_sandbox.proxy, "-s", "LANDING_RESOLVER_RATE=40")
    finally:
        small_sandbox.server.log = None
    resolver = [at for at, line in heard if RESOLVER.match(line)]
    # 40 a second, 10 (a quarter second's worth) at once: the last request comes at least (n - 10) / 40 s after
    # the first, less the time the first one took from its turn to the server (unpaced, all came within 1.5 s).
    assert len(resolver) > 100
    assert resolver[-1] - resolver[0] >= (len(resolver) - 10) / 40 - 0.5


def test_no_doi_arrives_at_a_cookie_wall_with_another_dois_cookies(every_crawl, every_sandbox, every_scenario_world):
    truth = truth_of(every_scenario_world)
    walled = {t["resource_url"] for t in truth.values() if t["scenario"] == "cookie-wall"}
    first = {}
    for request in every_sandbox.seen:
        first.setdefault(request.url, request.headers.get("cookie"))
    visited = walled & set(first)
    # One jar per DOI: each chain meets the wall without a cookie, gets one, and comes back with it.
    assert visited and {url: first[url] for url in visited} == {url: None for url in visited}


def test_every_cookie_jar_is_dropped_when_its_chain_ends(every_crawl):
    _, done = every_crawl
    assert "'landing/cookie_jars_left': 0," in done.stderr


def test_a_script_redirect_to_a_literal_url_is_followed_and_recorded_as_a_js_location_hop(
    every_crawl, every_scenario_world
):
    stores, _ = every_crawl
    truth = truth_of(every_scenario_world)
    scripted = [d for d in stores.export("snapshot") if truth[d["pid/doi"]]["scenario"] == "js-redirect"]
    assert scripted
    for doc in scripted:
        kinds = [hop.get("kind") for hop in doc["snapshot/hops"]]
        assert kinds.count("js-location") == 1 and doc["snapshot/error"] is None, doc["snapshot/hops"]
        assert doc["snapshot/final-url"] == truth[doc["pid/doi"]]["browser_final_url"]
