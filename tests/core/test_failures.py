"""landing.core.failures: why a chain did not end on a landing page, from statuses, headers and bodies."""

from pathlib import Path

import pytest

from landing.core.failures import (
    CLASSES,
    challenge,
    cookie_check,
    cookie_notice,
    host_failure,
    is_html,
    js_required,
    page_failure,
    redirect_failure,
    refused_redirect,
    script_location,
    status_failure,
)
from landing.core.page import Page

CORPUS = Path(__file__).resolve().parents[3] / "shared" / "corpus" / "landing-pages"

HTML = "text/html; charset=utf-8"
PAGE = b"<!DOCTYPE html><html><head><title>A page</title></head><body><p>Some words here.</p></body></html>"
ARTICLE_WORDS = " ".join(f"word{i}" for i in range(200))
CHALLENGE_PAGE = (
    b"<!DOCTYPE html><html><head><title>Just a moment...</title></head>"
    b"<body><p>Checking if the site connection is secure</p></body></html>"
)


# host_failure


@pytest.mark.parametrize(
    "url",
    ["https://a\x1bcred.evil.example/p", "https://a\u202eb.evil.example/", "http://=1+2.evil.example/", "https:///p"],
)
def test_a_chain_through_a_host_that_is_no_hostname_is_invalid_host(url):
    assert host_failure(["https://doi.org/10.1/x", url, "https://pub.example/a"]) == "invalid-host"


def test_a_url_whose_host_cannot_be_parsed_is_invalid_host():
    assert host_failure(["https://[::1/p"]) == "invalid-host"


def test_a_chain_of_hostnames_and_addresses_is_no_host_failure():
    chain = [
        "https://doi.org/10.1/x",
        "https://B\u00fccher.Example:8443/a",
        "http://192.0.2.7/",
        "http://[2001:db8::1]/",
    ]
    assert host_failure([*chain, None]) is None


def test_an_ipv4_address_in_a_shorthand_form_is_left_to_the_address_guard():
    assert host_failure(["http://2130706433/", "http://0x7f.1/"]) is None


def test_a_url_of_another_scheme_is_left_to_refused_address():
    assert host_failure(["file:///etc/passwd", "javascript:alert(1)"]) is None


def test_invalid_host_is_a_failure_class():
    assert "invalid-host" in CLASSES


# redirect_failure


def test_chain_that_returns_to_a_visited_url_is_a_redirect_loop():
    assert redirect_failure(["https://a.example/1", "https://a.example/2", "https://a.example/1"]) == "redirect-loop"


def test_chain_of_distinct_urls_is_too_many_redirects():
    urls = [f"https://a.example/{i}" for i in range(11)]
    assert redirect_failure(urls) == "too-many-redirects"


def test_chain_through_a_session_bounce_that_ends_in_a_loop_is_cookie_required():
    urls = ["https://doi.org/10.1/x", "https://pub.example/doi/10.1/x"] + [
        f"https://pub.example/action/getSharedSiteSession?redirect=%2Fdoi%2F10.1%2Fx&rc={n}" for n in range(10)
    ]
    assert redirect_failure(urls) == "cookie-required"


def test_page_that_redirects_to_itself_with_cookie_set_is_cookie_required():
    urls = [
        "https://pub.example/doi/abs/10.1/x",
        "https://pub.example/doi/abs/10.1/x?cookieSet=1",
        "https://pub.example/doi/abs/10.1/x",
        "https://pub.example/doi/abs/10.1/x?cookieSet=1",
    ]
    assert redirect_failure(urls) == "cookie-required"


# cookie_check and cookie_notice


@pytest.mark.parametrize(
    "url",
    [
        "https://onlinelibrary.wiley.com/action/cookieAbsent",
        "https://www.tandfonline.com/action/getSharedSiteSession?redirect=%2Fdoi%2Fabs%2F10.1080%2Fx&rc=3",
        "https://journals.example/doi/abs/10.1/x?cookieSet=1",
        "https://pub.example/cookies-required",
        "https://pub.example/cookie_disabled?return=%2Farticle",
    ],
)
def test_cookie_check_urls_are_recognised(url):
    assert cookie_check(url)


@pytest.mark.parametrize(
    "url",
    [
        "https://pub.example/doi/10.1/x",
        "https://pub.example/cookie-policy",
        "https://pub.example/about/cookies",
        "https://pub.example/search?q=cookieSet",
        "https://cookieabsent.example/article/1",
    ],
)
def test_ordinary_urls_are_no_cookie_check(url):
    assert not cookie_check(url)


def test_short_page_asking_to_enable_cookies_is_a_cookie_notice():
    page = (
        b"<html><head><title>Cookies disabled</title></head><body><h1>Cookies disabled</h1>"
        b"<p>Your browser must accept cookies to use this site.</p></body></html>"
    )
    assert cookie_notice(Page(page, HTML))


def test_short_page_saying_cookies_are_disabled_is_a_cookie_notice():
    assert cookie_notice(Page(b"<html><body><p>Cookies are disabled in your browser.</p></body></html>", HTML))


def test_long_page_with_a_cookie_banner_is_no_cookie_notice():
    page = (
        f"<html><body><div>We use cookies. Please accept cookies to continue.</div><p>{ARTICLE_WORDS}</p></body></html>"
    ).encode()
    assert not cookie_notice(Page(page, HTML))


def test_short_page_that_mentions_cookies_without_asking_is_no_cookie_notice():
    assert not cookie_notice(Page(b"<html><body><p>Read our cookie policy.</p></body></html>", HTML))


# status_failure


def test_401_with_a_page_is_no_failure():
    assert status_failure(401, has_page=True) is None


def test_401_without_a_page_is_http_4xx():
    assert status_failure(401, has_page=False) == "http-4xx"


def test_404_is_http_4xx_even_with_a_page():
    assert status_failure(404, has_page=True) == "http-4xx"


def test_500_is_http_5xx():
    assert status_failure(500, has_page=True) == "http-5xx"


def test_200_is_no_failure():
    assert status_failure(200, has_page=True) is None


# is_html


@pytest.mark.parametrize("content_type", ["text/html", "TEXT/HTML; charset=UTF-8", "application/xhtml+xml"])
def test_html_content_types_are_html(content_type):
    assert is_html(content_type, b"")


def test_pdf_content_type_is_not_html_whatever_the_body():
    assert not is_html("application/pdf", PAGE)


@pytest.mark.parametrize("body", [PAGE, b"  \n<html><body>x</body></html>", b"<!-- c --><head><title>t</title>"])
def test_missing_content_type_sniffs_an_html_body_as_html(body):
    assert is_html(None, body)


def test_missing_content_type_sniffs_a_pdf_body_as_not_html():
    assert not is_html(None, b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj")


# challenge


def test_403_with_cf_mitigated_challenge_is_a_challenge():
    assert challenge(403, {"cf-mitigated": "challenge"}, b"")


def test_503_titled_just_a_moment_is_a_challenge():
    assert challenge(503, {}, CHALLENGE_PAGE)


def test_200_titled_just_a_moment_is_no_challenge():
    assert not challenge(200, {}, CHALLENGE_PAGE)


def test_plain_403_is_no_challenge():
    assert not challenge(403, {}, PAGE)


# page_failure


def test_403_with_cf_mitigated_challenge_fails_as_challenge():
    assert page_failure(403, HTML, {"cf-mitigated": "challenge"}, PAGE) == "challenge"


def test_503_titled_just_a_moment_fails_as_challenge():
    assert page_failure(503, HTML, {}, CHALLENGE_PAGE) == "challenge"


def test_401_with_a_body_is_a_page():
    assert page_failure(401, HTML, {}, PAGE) is None


def test_401_with_an_empty_body_fails_as_http_4xx():
    assert page_failure(401, HTML, {}, b"  \n") == "http-4xx"


def test_404_fails_as_http_4xx():
    assert page_failure(404, HTML, {}, PAGE) == "http-4xx"


def test_500_fails_as_http_5xx():
    assert page_failure(500, HTML, {}, PAGE) == "http-5xx"


def test_200_pdf_fails_as_not_html():
    assert page_failure(200, "application/pdf", {}, b"%PDF-1.7\n") == "not-html"


def test_200_html_without_content_type_is_a_page():
    assert page_failure(200, None, {}, PAGE) is None


def test_200_without_content_type_or_html_body_fails_as_not_html():
    assert page_failure(200, None, {}, b"%PDF-1.7\n") == "not-html"


def test_every_class_page_failure_gives_is_listed():
    found = {
        page_failure(403, HTML, {"cf-mitigated": "challenge"}, b""),
        page_failure(404, HTML, {}, b""),
        page_failure(502, HTML, {}, b""),
        page_failure(200, "image/png", {}, b"x"),
    }
    assert found <= set(CLASSES)


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


def test_no_page_of_the_real_corpus_is_taken_for_a_cookie_notice():
    pages = sorted((CORPUS / "pages").glob("*.html"))
    if not pages:
        pytest.skip(f"no landing-page corpus at {CORPUS}")
    assert [page.name for page in pages if cookie_notice(Page(page.read_bytes(), "text/html"))] == []


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


@pytest.mark.parametrize("location", ["file:///etc/passwd", "ftp://example.org/a", " javascript:alert(1)"])
def test_a_redirect_off_the_web_is_refused(location):
    assert refused_redirect(302, location, "https://doi.org/10.1/a") == "refused-address"


@pytest.mark.parametrize(
    "status, location", [(302, "/next"), (301, "https://example.org/"), (200, "file:///a"), (302, None)]
)
def test_a_redirect_on_the_web_or_no_redirect_is_not_refused(status, location):
    assert refused_redirect(status, location, "https://doi.org/10.1/a") is None
