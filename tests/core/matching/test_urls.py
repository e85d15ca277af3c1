"""landing.core.matching.urls: tracking removal, exact and basic URL equality, and the subject URL of a page."""

import pytest

from landing.core.matching.urls import (
    TRACKING_PARAMETERS,
    TRACKING_PREFIXES,
    basic_key,
    domain,
    exact_key,
    is_tracking,
    same_basic,
    strip_tracking,
    subject_url,
)

ARTICLE = "https://journals.plos.org/plosone/article"


def same_exact(a: str, b: str) -> bool:
    """Whether two URLs share an exact key (how a page's canonical links are told apart); False for a bad port."""
    try:
        return exact_key(a) == exact_key(b)
    except ValueError:
        return False


# Tracking parameters


@pytest.mark.parametrize(
    "name",
    [
        "utm_source",
        "UTM_Campaign",
        "utm%5Fmedium",
        "mtm_kwd",
        "fbclid",
        "gclid",
        "msclkid",
        "WT.mc_id",
        "_hsenc",
        "__hstc",
        "hsCtaTracking",
        "mkt_tok",
        "mc_eid",
    ],
)
def test_is_tracking_recognises_tracking_names_in_any_case_or_encoding(name):
    assert is_tracking(name) is True


@pytest.mark.parametrize("name", ["ref", "source", "id", "doi", "cookieSet", "rc", "cid", "utm", "q", ""])
def test_is_tracking_leaves_names_that_may_select_content(name):
    assert is_tracking(name) is False


def test_tracking_names_are_stored_lower_case_for_case_insensitive_comparison():
    assert [name for name in (*TRACKING_PARAMETERS, *TRACKING_PREFIXES) if name != name.lower()] == []


def test_strip_tracking_keeps_other_parameters_in_their_order():
    assert strip_tracking(ARTICLE + "?z=1&utm_source=tw&a=2&fbclid=x&m=3") == ARTICLE + "?z=1&a=2&m=3"


def test_strip_tracking_removes_a_blank_tracking_value():
    assert strip_tracking(ARTICLE + "?id=7&utm_source=&utm_medium") == ARTICLE + "?id=7"


def test_strip_tracking_keeps_every_repeat_of_a_content_parameter():
    assert strip_tracking(ARTICLE + "?a=1&utm_source=x&a=2&utm_source=y") == ARTICLE + "?a=1&a=2"


def test_strip_tracking_keeps_the_fragment():
    assert strip_tracking(ARTICLE + "?a=1&gclid=x#authors") == ARTICLE + "?a=1#authors"


def test_strip_tracking_drops_the_question_mark_when_nothing_is_left():
    assert strip_tracking(ARTICLE + "?utm_source=x&utm_medium=y#top") == ARTICLE + "#top"


def test_strip_tracking_keeps_the_encoding_of_other_parameters():
    assert strip_tracking(ARTICLE + "?q=a%20b+c&utm_source=x&d=%2F") == ARTICLE + "?q=a%20b+c&d=%2F"


def test_strip_tracking_returns_a_url_without_query_unchanged():
    assert strip_tracking(ARTICLE + "#x?utm_source=1") == ARTICLE + "#x?utm_source=1"


def test_strip_tracking_returns_a_url_without_tracking_unchanged():
    assert strip_tracking(ARTICLE + "?a=1&&b=2&a=3") == ARTICLE + "?a=1&&b=2&a=3"


# Exact and basic equality: what each ignores


def test_host_case_is_ignored_by_both():
    assert (
        same_exact(ARTICLE, "https://Journals.PLOS.org/plosone/article"),
        same_basic(ARTICLE, "https://Journals.PLOS.org/plosone/article"),
    ) == (True, True)


def test_scheme_is_significant_for_exact_only():
    assert (
        same_exact(ARTICLE, "http://journals.plos.org/plosone/article"),
        same_basic(ARTICLE, "http://journals.plos.org/plosone/article"),
    ) == (False, True)


def test_scheme_case_is_ignored_by_exact():
    assert same_exact(ARTICLE, "HTTPS://journals.plos.org/plosone/article") is True


@pytest.mark.parametrize(
    "url, with_port",
    [
        ("https://ex.org/a", "https://ex.org:443/a"),
        ("http://ex.org/a", "http://ex.org:80/a"),
        ("http://ex.org/a", "http://ex.org:/a"),
    ],
)
def test_default_port_is_ignored_by_both(url, with_port):
    assert (same_exact(url, with_port), same_basic(url, with_port)) == (True, True)


def test_other_port_is_significant_for_both():
    assert (
        same_exact("https://ex.org/a", "https://ex.org:8443/a"),
        same_basic("https://ex.org/a", "https://ex.org:8443/a"),
    ) == (False, False)


def test_trailing_slash_is_significant_for_exact_only():
    assert (same_exact(ARTICLE, ARTICLE + "/"), same_basic(ARTICLE, ARTICLE + "/")) == (False, True)


def test_empty_path_equals_root_for_exact():
    assert same_exact("https://ex.org", "https://ex.org/") is True


def test_path_case_is_significant_for_exact_only():
    assert (
        same_exact(ARTICLE, "https://journals.plos.org/PLOSone/Article"),
        same_basic(ARTICLE, "https://journals.plos.org/PLOSone/Article"),
    ) == (False, True)


def test_query_is_significant_for_exact():
    assert same_exact(ARTICLE + "?id=1", ARTICLE + "?id=2") is False


def test_query_order_is_significant_for_exact():
    assert same_exact(ARTICLE + "?a=1&b=2", ARTICLE + "?b=2&a=1") is False


def test_query_is_ignored_by_basic():
    assert same_basic(ARTICLE + "?id=1", ARTICLE + "?id=2") is True


def test_tracking_parameters_are_ignored_by_exact():
    assert same_exact(ARTICLE + "?id=1", ARTICLE + "?utm_source=twitter&id=1&fbclid=abc") is True


def test_empty_query_is_ignored_by_exact():
    assert same_exact(ARTICLE + "?", ARTICLE) is True


def test_fragment_is_ignored_by_both():
    assert (same_exact(ARTICLE, ARTICLE + "#authors"), same_basic(ARTICLE, ARTICLE + "#authors")) == (True, True)


def test_escaped_unreserved_character_equals_the_character():
    assert (
        same_exact("https://ex.org/%7esmith", "https://ex.org/~smith"),
        same_basic("https://ex.org/%7esmith", "https://ex.org/~smith"),
    ) == (True, True)


def test_escape_hex_case_is_ignored_by_exact():
    assert same_exact("https://ex.org/a%c3%a9", "https://ex.org/a%C3%A9") is True


def test_non_ascii_path_equals_its_utf8_escapes_for_exact():
    assert same_exact("https://ex.org/r\u00e9sum\u00e9", "https://ex.org/r%C3%A9sum%C3%A9") is True


def test_escaped_slash_in_a_segment_is_not_a_slash():
    assert (
        same_exact("https://ex.org/10.1371%2Fx", "https://ex.org/10.1371/x"),
        same_basic("https://ex.org/10.1371%2Fx", "https://ex.org/10.1371/x"),
    ) == (False, False)


def test_escaped_percent_is_not_decoded():
    assert same_exact("https://ex.org/a%2541", "https://ex.org/a%41") is False


# Near misses: equal in neither


@pytest.mark.parametrize(
    "a, b",
    [
        ("https://journals.plos.org/plosone/article", "https://plos.org/plosone/article"),
        ("https://www.example.org/article/1", "https://example.org/article/1"),
        ("https://ex.org/article/123", "https://ex.org/article/1234"),
        ("https://ex.org/article/123", "https://ex.org/articles/123"),
        ("https://ex.org/article/123", "https://ex.org/article/123/pdf"),
    ],
)
def test_near_misses_are_equal_in_neither(a, b):
    assert (same_exact(a, b), same_basic(a, b)) == (False, False)


def test_basic_compares_both_hosts():
    assert same_basic("https://a.example/x", "https://b.example/x") is False


def test_a_url_with_a_bad_port_equals_nothing():
    assert (
        same_exact("https://ex.org:abc/a", "https://ex.org:abc/a"),
        same_basic("https://ex.org:abc/a", "https://ex.org/a"),
    ) == (False, False)


# Keys


def test_exact_key_applies_every_normalisation():
    assert exact_key("HTTPS://Ex.ORG:443/%7ea/b%2f?x=1&utm_source=t#f") == "https://ex.org/~a/b%2F?x=1"


def test_basic_key_is_host_and_path_lower_case_without_trailing_slash():
    assert basic_key("http://Ex.ORG:80/Article/12/?x=1#f") == "ex.org/article/12"


def test_basic_key_of_a_root_url_is_the_host():
    assert basic_key("https://ex.org/") == "ex.org"


def test_domain_is_the_lower_case_host_without_port():
    assert domain("https://Journals.PLOS.org:8443/plosone") == "journals.plos.org"


def test_domain_of_nothing_is_none():
    assert domain(None) is None


# Subject URL

VISITED = "https://t.co/abc"
FINAL = "https://ex.org/article/1?utm_source=twitter&page=2"


def test_subject_without_canonical_is_the_final_url_without_tracking():
    assert subject_url(VISITED, FINAL, []) == "https://ex.org/article/1?page=2"


def test_subject_without_final_url_is_the_visited_url():
    assert subject_url(VISITED, None, []) == VISITED


def test_subject_is_the_one_canonical():
    assert subject_url(VISITED, FINAL, ["https://ex.org/article/1"]) == "https://ex.org/article/1"


def test_subject_ignores_two_different_canonicals():
    canonicals = ["https://ex.org/a/1", "https://ex.org/a/2"]
    assert subject_url(VISITED, FINAL, canonicals) == "https://ex.org/article/1?page=2"


def test_subject_resolves_a_relative_canonical_against_the_final_url():
    assert subject_url(VISITED, FINAL, ["../doi/10.5555/1"]) == "https://ex.org/doi/10.5555/1"


def test_subject_resolves_a_relative_canonical_against_the_visited_url_without_final():
    assert subject_url("https://ex.org/a/b", None, ["/c"]) == "https://ex.org/c"


def test_subject_counts_canonicals_equal_after_resolution_once():
    assert subject_url(VISITED, FINAL, ["/article/1", "https://EX.org/article/1"]) == "https://ex.org/article/1"


def test_subject_ignores_a_non_http_canonical():
    assert subject_url(VISITED, FINAL, ["ftp://ex.org/article/1"]) == "https://ex.org/article/1?page=2"


def test_subject_ignores_a_non_http_canonical_beside_an_http_one():
    assert subject_url(VISITED, FINAL, ["urn:doi:10.5555/1", "https://ex.org/a/1"]) == "https://ex.org/a/1"


def test_subject_ignores_a_blank_canonical():
    assert subject_url(VISITED, FINAL, ["  ", "https://ex.org/a/1"]) == "https://ex.org/a/1"
