"""landing.core.web.failures: pages that need JavaScript, and the literal script redirects a plain client can follow."""

import pytest

from landing.core.pages.page import Page
from landing.core.web.failures import js_required, script_location
from tests.core.web.failing import ARTICLE_WORDS, CORPUS, HTML

# js_required


def test_body_of_only_a_window_location_assignment_requires_js():
    body = b'<html><head><script>window.location = "https://pub.example/article/1";</script></head><body></body></html>'
    assert js_required(Page(body, HTML))


def test_body_of_only_a_location_replace_requires_js():
    body = b"<html><head><script>location.replace('https://pub.example/article/1')</script></head><body></body></html>"
    assert js_required(Page(body, HTML))


def test_empty_app_div_with_a_computed_location_assign_requires_js():
    body = (
        b"<html><head><script>var p = ['https://pub', '.example/a/1'];"
        b"window.location.assign(p.join(''));</script></head><body><div id=app></div></body></html>"
    )
    assert js_required(Page(body, HTML))


def test_short_redirecting_text_with_a_location_assignment_requires_js():
    body = (
        b"<html><body><p>Redirecting you to the article, please wait.</p>"
        b"<script>document.location.href = '/article/1';</script></body></html>"
    )
    assert js_required(Page(body, HTML))


def test_empty_body_with_any_script_requires_js():
    body = b"<html><head><script src='/bundle.js'></script></head><body><div id=root></div></body></html>"
    assert js_required(Page(body, HTML))


def test_article_of_200_words_with_an_analytics_location_assignment_does_not_require_js():
    body = (
        f"<html><head><script>if (!window.ok) {{ window.location = '/consent'; }}</script></head>"
        f"<body><article><h1>Title</h1><p>{ARTICLE_WORDS}</p></article></body></html>"
    ).encode()
    assert not js_required(Page(body, HTML))


def test_short_text_with_scripts_that_do_not_move_does_not_require_js():
    body = b"<html><body><p>Page not found.</p><script>console.log('hi')</script></body></html>"
    assert not js_required(Page(body, HTML))


def test_page_without_scripts_does_not_require_js():
    assert not js_required(Page(b"<html><head><title>t</title></head><body></body></html>", HTML))


def test_empty_body_does_not_require_js():
    assert not js_required(Page(b"", HTML))


def test_text_inside_noscript_does_not_count_as_visible():
    body = (
        b"<html><body><noscript>Please enable JavaScript to view this page.</noscript>"
        b"<script>location.href = '/a/1'</script></body></html>"
    )
    assert js_required(Page(body, HTML))


def test_text_inside_a_template_does_not_count_as_visible():
    # A client-side app's markup waiting in <template>: the page shows nothing until a script stamps it out.
    body = (
        b"<html><body><template><h1>Article title</h1><p>Abstract</p></template>"
        b"<script>render(document.querySelector('template'))</script></body></html>"
    )
    assert js_required(Page(body, HTML))


def test_short_page_whose_script_only_compares_location_does_not_require_js():
    body = (
        b"<html><body><p>Page not found.</p>"
        b"<script>if (window.location.href == 'https://a.example/') { track(); }</script></body></html>"
    )
    assert not js_required(Page(body, HTML))


# script_location


@pytest.mark.parametrize(
    "body, target",
    [
        (b'<html><body><script>window.location = "https://x.example/a";</script></body></html>', "https://x.example/a"),
        (b"<html><body><script>window.location.href='/b?c=1'</script></body></html>", "/b?c=1"),
        (b"<html><body><script>location.href = '/c'</script></body></html>", "/c"),
        (b'<html><body><script>location.replace("/d")</script></body></html>', "/d"),
        (b"<html><body><script>window.location.assign( '/e' );</script></body></html>", "/e"),
        (b'<html><body><script>document.location = "/f"</script></body></html>', "/f"),
        (b'<html><body><script>top.location="/g"</script><p>Redirecting you now.</p></body></html>', "/g"),
    ],
)
def test_script_location_finds_a_literal_target(body, target):
    assert script_location(Page(body, "text/html")) == target


@pytest.mark.parametrize(
    "body",
    [
        # computed: only a browser can follow it
        b"<html><body><script>var p=['ht','tp:/']; window.location.assign(p.join(''));</script></body></html>",
        # an event handler, as real pages have by the dozen, is not a redirect
        b"<html><body><span onclick=\"window.location.href='/s'\">Author</span></body></html>",
        # a comparison, not an assignment
        b"<html><body><script>if (x == location.href) {}</script></body></html>",
        # a real page with text is read as it is, whatever its scripts do
        b"<html><body><script>location.href='/x'</script>" + b"<p>" + b"word " * 31 + b"</p></body></html>",
        b"<html><body><p>No scripts here.</p></body></html>",
    ],
)
def test_script_location_finds_nothing_to_follow(body):
    assert script_location(Page(body, "text/html")) is None


def test_no_page_of_the_real_corpus_is_taken_for_a_script_redirect():
    # Several have onclick="window.location.href='...'" handlers and location reads in their scripts.
    pages = sorted((CORPUS / "pages").glob("*.html"))
    if not pages:
        pytest.skip(f"no landing-page corpus at {CORPUS}")
    assert [page.name for page in pages if script_location(Page(page.read_bytes(), "text/html"))] == []


def test_a_utf16_script_only_page_is_still_read_for_its_script_redirect():
    page = "\ufeff<html><body><script>location.replace('/article/1')</script></body></html>".encode("utf-16-le")
    assert (script_location(Page(page, None)), js_required(Page(page, None))) == ("/article/1", True)


def test_an_xhtml_page_with_an_xml_declaration_is_read_for_its_scripts_and_words():
    # lxml refuses a str that carries an encoding declaration: such pages were never checked at all.
    body = (
        b'<?xml version="1.0" encoding="UTF-8"?>\n<html xmlns="http://www.w3.org/1999/xhtml"><head>'
        b'<script>document.write("x")</script></head><body><noscript>Enable JavaScript</noscript></body></html>'
    )
    assert js_required(Page(body, "text/html")) is True
