"""Hostile pages and registrations (issue 16), crawled as a user crawls, each ending in its class while the crawl
goes on. Only http(s) is fetched: a DOI registered at a file: or ftp: URL, whether its Handle record is read or
the resolver's redirect followed, costs its DOI a refused visit, never a local file read into the blob store. A
gzip bomb is too large, not a broken connection; a binary body is not HTML; a page lying about its charset is
still read."""

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
    dois = {
        "10.99002/file": secret.as_uri(),
        "10.99002/ftp": "ftp://127.0.0.1/pub/a.txt",
        "10.99002/page": "https://schemes.example/page",
        "10.99002/bomb": "https://schemes.example/bomb",
        "10.99002/binary": "https://schemes.example/binary",
        "10.99002/charset": "https://schemes.example/charset",
    }
    (world / "binary.bin").write_bytes(bytes(range(256)) * 64)
    # windows-1252 bytes under a header and a <meta charset> that both claim utf-8
    (world / "charset.html").write_bytes(
        '<html><head><meta charset="utf-8"><meta name="citation_doi" '
        'content="10.99002/charset"><title>Caf\u00e9 \u2014 Z\u00fcrich</title></head>'
        "<body>Caf\u00e9</body></html>".encode("cp1252")
    )
    # 3 MB of zeros in 3 KB: Scrapy's decompression stops at DOWNLOAD_MAXSIZE (2 MiB).
    (world / "bomb.gz").write_bytes(gzip.compress(b"\0" * (3 * 1024 * 1024)))
    (world / "world.json").write_text(
        json.dumps(
            {
                "format": "landing-sandbox/1",
                "members": [{"id": "1", "primary-name": "Scheme Press", "prefixes": ["10.99002"]}],
            }
        )
    )
    (world / "dois.jsonl").write_text(
        "".join(json.dumps({"doi": d, "ra": "crossref", "member": "1", "url": u}) + "\n" for d, u in dois.items())
    )
    routes = [
        {
            "url": dois["10.99002/page"],
            "body": (
                '<html><head><meta name="citation_doi" content="10.99002/page">'
                "<title>t</title></head><body>A page.</body></html>"
            ),
        },
        {"url": dois["10.99002/bomb"], "body_file": "bomb.gz", "headers": {"Content-Encoding": "gzip"}},
        {"url": dois["10.99002/binary"], "body_file": "binary.bin", "content_type": "application/octet-stream"},
        {"url": dois["10.99002/charset"], "body_file": "charset.html", "content_type": "text/html; charset=utf-8"},
    ]
    (world / "routes.jsonl").write_text("".join(json.dumps(route) + "\n" for route in routes))
    sandbox = RunningSandbox(world)
    try:
        stores = Stores(tmp_path_factory.mktemp("stores"))
        stores.crawl(sandbox.proxy, "-s", f"TUNING_RESOURCE_URL_FROM={request.param}", "-s", "LANDING_SOURCES=crossref")
    finally:
        sandbox.close()
    snapshots = {doc["pid/doi"]: doc for doc in stores.export("analysis")}
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


def test_a_binary_body_is_not_html(crawled):
    assert crawled[0]["10.99002/binary"]["snapshot/error"] == "not-html"


def test_a_page_lying_about_its_charset_is_still_read(crawled):
    got = crawled[0]["10.99002/charset"]
    assert (got["snapshot/error"], got["analysis/meta-tag-correctness"]) == (None, "ok")
