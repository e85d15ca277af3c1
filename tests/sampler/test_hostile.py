"""Hostile pages and registrations (issue 16), crawled as a user crawls, each ending in its class while the crawl
goes on. Only http(s) is fetched: a DOI registered at a file: or ftp: URL, whether its Handle record is read or
the resolver's redirect followed, costs its DOI a refused visit, never a local file read into the blob store. A
gzip bomb is too large, not a broken connection."""
import gzip
import json

import pytest

from landing_dev.sandbox.server import RunningSandbox
from tests.sampler.crawling import Stores

SECRET = b"a local file the crawl must never read"


@pytest.fixture(scope="module", params=["handle", "redirect"])
def crawled(request, tmp_path_factory):
    world = tmp_path_factory.mktemp("schemes")
    secret = world / "secret.txt"
    secret.write_bytes(SECRET)
    dois = {"10.99002/file": secret.as_uri(), "10.99002/ftp": "ftp://127.0.0.1/pub/a.txt",
            "10.99002/page": "https://schemes.example/page", "10.99002/bomb": "https://schemes.example/bomb"}
    # 3 MB of zeros in 3 KB: Scrapy's decompression stops at DOWNLOAD_MAXSIZE (2 MiB).
    (world / "bomb.gz").write_bytes(gzip.compress(b"\0" * (3 * 1024 * 1024)))
    (world / "world.json").write_text(json.dumps({"format": "landing-sandbox/1", "members": [
        {"id": "1", "primary-name": "Scheme Press", "prefixes": ["10.99002"]}]}))
    (world / "dois.jsonl").write_text("".join(json.dumps({"doi": d, "ra": "crossref", "member": "1", "url": u}) + "\n"
                                              for d, u in dois.items()))
    routes = [{"url": dois["10.99002/page"], "body": ('<html><head><meta name="citation_doi" content="10.99002/page">'
                                                      '<title>t</title></head><body>A page.</body></html>')},
              {"url": dois["10.99002/bomb"], "body_file": "bomb.gz", "headers": {"Content-Encoding": "gzip"}}]
    (world / "routes.jsonl").write_text("".join(json.dumps(route) + "\n" for route in routes))
    sandbox = RunningSandbox(world)
    try:
        stores = Stores(tmp_path_factory.mktemp("stores"))
        stores.crawl(sandbox.proxy, "-s", f"LANDING_RESOURCE_URL_FROM={request.param}", "-s", "LANDING_SOURCES=crossref")
    finally:
        sandbox.close()
    snapshots = {doc["pid/doi"]: doc for doc in stores.export("snapshot")}
    blobs = [path.read_bytes() for path in (stores.root / "blobs").rglob("*") if path.is_file()]
    return snapshots, blobs


@pytest.mark.parametrize("doi", ["10.99002/file", "10.99002/ftp"])
def test_a_registered_url_of_another_scheme_is_a_refused_visit(crawled, doi):
    assert crawled[0][doi]["snapshot/error"] == "refused-address"


def test_no_local_file_reaches_the_blob_store(crawled):
    assert crawled[1] and not any(SECRET in blob for blob in crawled[1])


def test_an_https_page_of_the_same_crawl_is_still_visited(crawled):
    assert crawled[0]["10.99002/page"]["snapshot/error"] is None


def test_a_gzip_bomb_is_too_large(crawled):
    assert crawled[0]["10.99002/bomb"]["snapshot/error"] == "too-large"
