"""A host that is not a hostname (a control character, a bidi override, `=` or `$` in a label: issue 29) ends its
DOI's visit as `invalid-host`, before any request to it, whether the DOI is registered there or a redirect leads
there; its visit names no domain, so no artifact can hold it, and the crawl goes on."""

import json

import pytest

from landing_dev.sandbox.server import RunningSandbox
from tests.sampler.crawling import Stores

ESC = "https://a\x1bcred.evil.example/p"
BIDI = "https://a\u202eb.evil.example/p"
FORMULA = "https://=1+2.evil.example/p"
HOPS = "https://hops.example"
DOIS = {
    "10.99005/registered": ESC,
    "10.99005/registered-bidi": BIDI,
    "10.99005/esc": f"{HOPS}/esc",
    "10.99005/bidi": f"{HOPS}/bidi",
    "10.99005/formula": f"{HOPS}/formula",
    "10.99005/page": f"{HOPS}/page",
}
INVALID = sorted(set(DOIS) - {"10.99005/page"})


def _page(doi):
    return f'<html><head><meta name="citation_doi" content="{doi}"><title>t</title></head><body>.</body></html>'


@pytest.fixture(scope="module", params=["redirect", "handle"])
def crawled(request, tmp_path_factory):
    world = tmp_path_factory.mktemp("hosts")
    (world / "world.json").write_text(
        json.dumps(
            {
                "format": "landing-sandbox/1",
                "members": [{"id": "1", "primary-name": "Host Press", "prefixes": ["10.99005"]}],
            }
        )
    )
    (world / "dois.jsonl").write_text(
        "".join(json.dumps({"doi": d, "ra": "crossref", "member": "1", "url": u}) + "\n" for d, u in DOIS.items())
    )
    # Each bad host serves a page stating its DOI: a crawl that fetched it would store a visit that reached a page.
    routes = [
        {"url": f"{HOPS}/esc", "status": 302, "location": ESC},
        {"url": f"{HOPS}/bidi", "status": 302, "location": BIDI},
        {"url": f"{HOPS}/formula", "status": 301, "location": FORMULA},
        {"url": f"{HOPS}/page", "body": _page("10.99005/page")},
        *({"url": url, "body": _page(doi)} for doi, url in DOIS.items() if url in (ESC, BIDI)),
        {"url": FORMULA, "body": _page("10.99005/formula")},
    ]
    (world / "routes.jsonl").write_text("".join(json.dumps(route) + "\n" for route in routes))
    asked = []
    sandbox = RunningSandbox(world, log=asked.append)
    try:
        stores = Stores(tmp_path_factory.mktemp("stores"))
        stores.crawl(sandbox.proxy, "-s", f"TUNING_RESOURCE_URL_FROM={request.param}", "-s", "LANDING_SOURCES=crossref")
    finally:
        sandbox.close()
    return {doc["pid/doi"]: doc for doc in stores.export("analysis")}, asked, stores


def test_a_visit_to_a_host_that_is_no_hostname_ends_invalid_host(crawled):
    assert {doi: crawled[0][doi]["snapshot/error"] for doi in INVALID} == dict.fromkeys(INVALID, "invalid-host")


def test_a_host_that_is_no_hostname_is_never_a_final_url_domain(crawled):
    assert {doi: crawled[0][doi]["snapshot/final-url-domain"] for doi in INVALID} == dict.fromkeys(INVALID)


def test_no_request_is_made_to_a_host_that_is_no_hostname(crawled):
    assert [line for line in crawled[1] if "evil.example" in line] == []


def test_a_page_on_a_good_host_of_the_same_crawl_is_still_visited(crawled):
    page = crawled[0]["10.99005/page"]
    assert (page["snapshot/error"], page["snapshot/final-url-domain"]) == (None, "hops.example")


def test_no_artifact_names_a_host_that_is_no_hostname(crawled):
    texts = [path.read_text() for path in crawled[2].artifacts.iterdir() if path.is_file()]
    assert texts and not any("evil.example" in text for text in texts)
