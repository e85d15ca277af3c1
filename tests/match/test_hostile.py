"""Hostile input fed to `scrapy match` (issue 16), as a user feeds it: URLs naming the crawling machine's own
network, strings built to stall the reactor, bytes that are not UTF-8, and pages built to hurt a reader. Each
input gets its line and a classified outcome, the run goes on to the next, and nothing reaches a local listener."""

import gzip
import json
import time

import pytest

from landing_dev.sandbox.server import RunningSandbox
from tests.local_http import serving
from tests.sampler.crawling import Stores

PAGE = '<html><head><meta name="citation_doi" content="{doi}"><title>A work</title></head><body>{body}</body></html>'


def _lines(done) -> list[dict]:
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr[-3000:]
    return [json.loads(line) for line in done.stdout.splitlines()]


def _outcomes(result: dict) -> list[str]:
    return [step.get("outcome") for step in result["evidence"]]


@pytest.fixture(scope="module")
def refused(tmp_path_factory):
    """URLs of the crawling machine's network, matched with the guard on (no sandbox), beside a listener."""
    with serving(lambda path: (200, {"Content-Type": "text/html"}, b"<p>local</p>")) as (port, hits):
        inputs = [
            f"http://127.0.0.1:{port}/article",
            f"http://localhost:{port}/article",
            "http://169.254.169.254/latest/meta-data/",
            f"http://public.example@127.0.0.1:{port}/",
            f"http://[::ffff:127.0.0.1]:{port}/",
            "http://2130706433/",
            "file:///etc/passwd",
            "ftp://127.0.0.1/pub/10.1234/abcde",
        ]
        done = Stores(tmp_path_factory.mktemp("refused")).scrapy(
            "match",
            "--fetch-all",  # no artifact names these hosts: asked to fetch them anyway, the guard must refuse
            *inputs,
            overrides=["-s", "RETRY_TIMES=0", "-s", "TELNETCONSOLE_ENABLED=False"],
            timeout=120,
        )
        return inputs, _lines(done), list(hits)


def test_no_url_of_the_crawling_machines_network_reaches_its_listener(refused):
    inputs, results, hits = refused
    assert hits == []
    assert [result["input"] for result in results] == inputs


def test_each_url_of_the_crawling_machines_network_is_fetched_never_and_answered_refused(refused):
    _, results, _ = refused
    fetched = [result for result in results if result["input"].startswith("http")]
    # A bare integer (2130706433, 127.0.0.1 to a browser) is no hostname: malformed before any guard is asked.
    assert [(_outcomes(result)[-1], result["doi"]) for result in fetched] == [("refused-address", None)] * 5 + [
        ("invalid host", None)
    ]


def test_a_url_of_another_scheme_gets_no_fetch_at_all(refused):
    _, results, _ = refused
    others = [result for result in results if not result["input"].startswith("http")]
    assert [("fetch" in [step["step"] for step in result["evidence"]], result["doi"]) for result in others] == [
        (False, None),
        (False, None),
    ]


HOSTILE_LINES = [
    "10.99002/page" + ")" * 80_000,  # trimmed in one pass, not in quadratic time
    "doi:10.99002/pa\u0000ge and 10.99002/page\u001b[31m",  # control characters inside and after a DOI
    "x " * 500_000,  # a megabyte of free text naming nothing
]


@pytest.fixture(scope="module")
def pages(tmp_path_factory):
    """Hostile pages and strings, matched against a sandbox serving the pages."""
    world = tmp_path_factory.mktemp("pages")
    (world / "bomb.gz").write_bytes(gzip.compress(b"\0" * (3 * 1024 * 1024)))  # past DOWNLOAD_MAXSIZE unpacked
    (world / "binary.bin").write_bytes(bytes(range(256)) * 64)
    (world / "charset.html").write_bytes(
        PAGE.format(doi="10.99002/charset", body="Caf\u00e9 \u2014 Z\u00fcrich").encode("cp1252")
    )  # served as utf-8
    metas = "".join(f'<meta name="dc.identifier" content="10.99002/decoy{n}">' for n in range(20_000))
    (world / "metas.html").write_text(PAGE.format(doi="10.99002/metas", body="").replace("<title>", metas + "<title>"))
    brackets = PAGE.format(doi="10.99002/brackets", body="doi:10.99002/brackets" + ")" * 80_000)
    (world / "brackets.html").write_text(brackets)
    site = "https://hostile.example"
    dois = {
        "10.99002/page": f"{site}/page",
        "10.99002/charset": f"{site}/charset",
        "10.99002/metas": f"{site}/metas",
        "10.99002/brackets": f"{site}/brackets",
    }
    (world / "world.json").write_text(
        json.dumps(
            {
                "format": "landing-sandbox/1",
                "members": [{"id": "1", "primary-name": "Hostile Press", "prefixes": ["10.99002"]}],
            }
        )
    )
    (world / "dois.jsonl").write_text(
        "".join(json.dumps({"doi": d, "ra": "crossref", "member": "1", "url": u}) + "\n" for d, u in dois.items())
    )
    routes = [
        {"url": f"{site}/page", "body": PAGE.format(doi="10.99002/page", body="A page.")},
        {"url": f"{site}/bomb", "body_file": "bomb.gz", "headers": {"Content-Encoding": "gzip"}},
        {"url": f"{site}/binary", "body_file": "binary.bin", "content_type": "application/octet-stream"},
        {"url": f"{site}/charset", "body_file": "charset.html", "content_type": "text/html; charset=utf-8"},
        {"url": f"{site}/metas", "body_file": "metas.html"},
        {"url": f"{site}/brackets", "body_file": "brackets.html"},
    ]
    (world / "routes.jsonl").write_text("".join(json.dumps(route) + "\n" for route in routes))
    inputs = [f"{site}/{name}" for name in ("bomb", "binary", "charset", "metas", "brackets")]
    source = world / "inputs.txt"
    source.write_bytes(
        "\n".join(inputs + HOSTILE_LINES).encode("utf-8", "surrogatepass")
        + b"\n"
        + f"{site}/page \xff\xfe".encode("latin-1")
        + b"\n\xed\xa0\x80\n"
    )
    sandbox = RunningSandbox(world)
    try:
        started = time.monotonic()
        done = Stores(tmp_path_factory.mktemp("stores")).scrapy(
            "match",
            "-i",
            str(source),
            "--fetch-all",  # no artifact names hostile.example: its pages are fetched all the same
            overrides=["-s", f"LANDING_SANDBOX={sandbox.proxy}", "-s", "TELNETCONSOLE_ENABLED=False"],
            timeout=300,
        )
        seconds = time.monotonic() - started
    finally:
        sandbox.close()
    return {result["input"][:40]: result for result in _lines(done)}, done.stderr, seconds


def test_every_hostile_line_gets_its_answer(pages):
    results, _, _ = pages
    assert len(results) == 10


def test_a_gzip_bomb_is_too_large_and_a_binary_body_not_html(pages):
    results, _, _ = pages
    bomb, binary = results["https://hostile.example/bomb"], results["https://hostile.example/binary"]
    assert ("too-large" in _outcomes(bomb), bomb["doi"]) == (True, None)
    assert ("not-html" in _outcomes(binary), binary["doi"]) == (True, None)


def test_a_page_lying_about_its_charset_is_still_matched_by_its_meta_tag(pages):
    assert pages[0]["https://hostile.example/charset"]["doi"] == "10.99002/charset"


def test_a_page_with_twenty_thousand_meta_tags_is_read_within_the_cap_and_matched(pages):
    assert pages[0]["https://hostile.example/metas"]["doi"] == "10.99002/metas"


def test_a_doi_followed_by_eighty_thousand_brackets_is_cut_free_in_a_page_and_in_an_input(pages):
    results, _, seconds = pages
    assert results["https://hostile.example/brackets"]["doi"] == "10.99002/brackets"
    assert results["10.99002/page" + ")" * 27]["doi"] == "10.99002/page"
    assert seconds < 120  # quadratic trimming took an hour a page


def test_control_characters_never_become_part_of_a_doi(pages):
    result = pages[0]["doi:10.99002/pa\u0000ge and 10.99002/page\u001b[31"]
    assert [match["doi"] for match in result["matches"]] == ["10.99002/page"]


def test_bytes_that_are_not_utf8_are_read_with_replacement_and_said(pages):
    results, stderr, _ = pages
    assert results["https://hostile.example/page \ufffd\ufffd"]["doi"] == "10.99002/page"
    assert results["\ufffd\ufffd\ufffd"]["doi"] is None
    assert "not UTF-8" in stderr
