"""landing.core.pages.reading: a snapshot and its page to the analysis document, js-required included."""

from landing.core.pages import documents
from landing.core.pages.documents import ANALYSIS_KEYS
from landing.core.pages.page import Page
from landing.core.pages.reading import RECLASSES, as_crawled, landing_page, page_class, read

DOI = "10.1234/abc.5"
TS = "2024-05-06T10:00:00Z"
HTML = "text/html; charset=utf-8"
SCRIPT_REDIRECT = (
    b"<html><head><script>window.location = 'https://pub.example/article/5';</script></head><body></body></html>"
)
HEAD_ONLY = (
    f'<html><head><meta name="citation_doi" content="{DOI}"><script src="/app.js"></script>'
    f"<script>window.location.assign('/article/5');</script></head><body></body></html>"
).encode()
ARTICLE = (
    f'<html><head><meta name="citation_doi" content="{DOI}"></head>'
    f'<body><p>Read it at <a href="https://doi.org/{DOI}">https://doi.org/{DOI}</a></p></body></html>'
).encode()


COOKIE_ABSENT = (
    b"<html><head><title>Cookies disabled</title></head>"
    b"<body><p>Your browser must accept cookies to use this site.</p></body></html>"
)
SILENT = b"<html><head><title>Session</title></head><body><p>One moment.</p></body></html>"


def a_snapshot(error=None, content_type=HTML, final_url="https://pub.example/a", content_hash=None):
    pid = documents.pid(DOI, "crossref", "98", TS)
    return documents.snapshot(
        pid,
        timestamp=TS,
        driver="http",
        final_url=final_url,
        status=200,
        content_type=content_type,
        error=error,
        content_hash=content_hash,
    )


def test_every_class_reading_gives_a_page_is_undone_before_it_is_read_again():
    for body in (COOKIE_ABSENT, SCRIPT_REDIRECT):
        read_once = read(a_snapshot(content_hash="ab" * 32), Page(body, HTML), TS)
        assert read_once["snapshot/error"] in RECLASSES
        assert as_crawled(read_once)["snapshot/error"] is None
        assert read(as_crawled(read_once), Page(body, HTML), TS)["snapshot/error"] == read_once["snapshot/error"]


def test_a_chain_that_failed_at_a_cookie_check_keeps_its_class():
    failed = a_snapshot(error="cookie-required", final_url="https://pub.example/action/cookieAbsent")
    assert as_crawled(failed) == failed


def test_page_asking_for_cookies_without_a_doi_becomes_cookie_required():
    assert read(a_snapshot(), Page(COOKIE_ABSENT, HTML), TS)["snapshot/error"] == "cookie-required"


def test_page_at_a_cookie_check_url_without_a_doi_becomes_cookie_required():
    snapshot = a_snapshot(final_url="https://pub.example/action/cookieAbsent")
    assert read(snapshot, Page(SILENT, HTML), TS)["snapshot/error"] == "cookie-required"


def test_landing_page_stating_its_doi_at_a_cookie_set_url_is_analysed():
    snapshot = a_snapshot(final_url="https://pub.example/doi/abs/10.1234/abc.5?cookieSet=1")
    assert read(snapshot, Page(ARTICLE, HTML), TS)["snapshot/error"] is None


def test_error_snapshot_has_every_analysis_field_none():
    doc = read(a_snapshot(error="http-4xx"), Page(ARTICLE, HTML), TS)
    assert [doc[k] for k in ANALYSIS_KEYS[:-1]] == [None] * (len(ANALYSIS_KEYS) - 1)


def test_error_snapshot_keeps_its_error():
    assert read(a_snapshot(error="timeout"), None, TS)["snapshot/error"] == "timeout"


def test_snapshot_without_body_has_every_analysis_field_none():
    doc = read(a_snapshot(), None, TS)
    assert [doc[k] for k in ANALYSIS_KEYS[:-1]] == [None] * (len(ANALYSIS_KEYS) - 1)


def test_analysis_carries_its_timestamp():
    assert (
        read(a_snapshot(), Page(ARTICLE, HTML), "2024-05-07T00:00:00Z")["analysis/timestamp"] == "2024-05-07T00:00:00Z"
    )


def test_script_only_redirect_without_a_doi_becomes_js_required():
    assert read(a_snapshot(), Page(SCRIPT_REDIRECT, HTML), TS)["snapshot/error"] == "js-required"


def test_script_only_redirect_without_a_doi_has_no_analysis():
    doc = read(a_snapshot(), Page(SCRIPT_REDIRECT, HTML), TS)
    assert [doc[k] for k in ANALYSIS_KEYS[:-1]] == [None] * (len(ANALYSIS_KEYS) - 1)


def test_head_only_landing_page_stating_its_doi_is_not_js_required():
    assert read(a_snapshot(), Page(HEAD_ONLY, HTML), TS)["snapshot/error"] is None


def test_head_only_landing_page_stating_its_doi_is_analysed():
    doc = read(a_snapshot(), Page(HEAD_ONLY, HTML), TS)
    assert (doc["analysis/meta-tags"], doc["analysis/meta-tag-correctness"], doc["analysis/doi-in-meta-tags"]) == (
        [["citation_doi", DOI]],
        "ok",
        "non-url",
    )


def test_article_page_is_analysed():
    doc = read(a_snapshot(), Page(ARTICLE, HTML), TS)
    assert (
        doc["snapshot/error"],
        doc["analysis/meta-tag-correctness"],
        doc["analysis/doi-in-hyperlinks"],
        doc["analysis/doi-in-text"],
    ) == (None, "ok", "https-doi", "https-doi")


def test_page_without_doi_or_scripts_is_analysed_as_missing():
    body = b"<html><body><p>Welcome to our journal.</p></body></html>"
    doc = read(a_snapshot(), Page(body, HTML), TS)
    assert (doc["snapshot/error"], doc["analysis/meta-tag-correctness"], doc["analysis/meta-tags"]) == (
        None,
        "missing",
        [],
    )


def test_read_leaves_the_snapshot_it_was_given_unchanged():
    snap = a_snapshot()
    before = dict(snap)
    read(snap, Page(SCRIPT_REDIRECT, HTML), TS)
    assert snap == before


def test_a_page_stating_its_doi_is_a_landing_page_even_when_it_scripts_a_move():
    assert (landing_page(Page(HEAD_ONLY, HTML), DOI), landing_page(Page(SCRIPT_REDIRECT, HTML), DOI)) == (True, False)


def test_page_class_is_the_snapshots_own_class_when_it_failed_or_fetched_no_page():
    assert (page_class(a_snapshot(error="http-4xx"), Page(SCRIPT_REDIRECT, HTML)), page_class(a_snapshot(), None)) == (
        "http-4xx",
        None,
    )


def test_page_class_of_a_reached_page_is_what_reading_reclassifies_it_as():
    classes = [page_class(a_snapshot(), Page(body, HTML)) for body in (ARTICLE, COOKIE_ABSENT, SCRIPT_REDIRECT)]
    assert classes == [None, "cookie-required", "js-required"]
