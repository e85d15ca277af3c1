"""landing.core.web.failures: why a chain did not end on a landing page, from its hosts, redirects, statuses, headers
and bodies."""

import pytest

from landing.core.pages.page import Page
from landing.core.web.failures import (
    CLASSES,
    challenge,
    cookie_check,
    cookie_notice,
    host_failure,
    is_html,
    page_failure,
    redirect_failure,
    refused_redirect,
    status_failure,
)
from tests.core.web.failing import ARTICLE_WORDS, CORPUS, HTML

PAGE = b"<!DOCTYPE html><html><head><title>A page</title></head><body><p>Some words here.</p></body></html>"
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


def test_no_page_of_the_real_corpus_is_taken_for_a_cookie_notice():
    pages = sorted((CORPUS / "pages").glob("*.html"))
    if not pages:
        pytest.skip(f"no landing-page corpus at {CORPUS}")
    assert [page.name for page in pages if cookie_notice(Page(page.read_bytes(), "text/html"))] == []


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


# refused_redirect


@pytest.mark.parametrize("location", ["file:///etc/passwd", "ftp://example.org/a", " javascript:alert(1)"])
def test_a_redirect_off_the_web_is_refused(location):
    assert refused_redirect(302, location, "https://doi.org/10.1/a") == "refused-address"


@pytest.mark.parametrize(
    "status, location", [(302, "/next"), (301, "https://example.org/"), (200, "file:///a"), (302, None)]
)
def test_a_redirect_on_the_web_or_no_redirect_is_not_refused(status, location):
    assert refused_redirect(status, location, "https://doi.org/10.1/a") is None
