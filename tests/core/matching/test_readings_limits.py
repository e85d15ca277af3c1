"""What one input may cost the matcher's pure steps (issue 29): free text read in linear time, a malformed URL named
as such, and evidence folded past its cap."""

import time

import pytest

from landing.core.matching.readings import attempt, capped, malformed, pieces


def test_half_a_megabyte_of_one_url_repeated_is_read_as_one_piece_in_linear_time():
    text = "http://a.b/ " * 40_000  # each URL was checked against every earlier one: quadratic
    started = time.monotonic()
    found = pieces(text)
    assert (found, time.monotonic() - started < 10) == (["http://a.b/"], True)


def test_free_text_pieces_keep_text_order_and_a_doi_inside_a_url_stays_the_urls():
    text = 'see 10.1111/x and <a href="https://x.example/10.2222/y">y</a> then https://z.example/10.3333/z 10.1111/x'
    assert pieces(text) == ["10.1111/x", "https://x.example/10.2222/y", "https://z.example/10.3333/z"]


@pytest.mark.parametrize(
    ("url", "why"),
    [
        ("https://", "no host"),
        ("http://", "no host"),
        ("https://:443/10.1234/abc", "no host"),
        ("https://a..b.example/", "invalid host"),
        ("https://-a.example/", "invalid host"),
        ("https://a\u202eb.example/", "invalid host"),
        ("https://x.example:99999/", "invalid port"),
        ("https://x.example:port/", "invalid port"),
        ("https://[::1/", "invalid URL"),
    ],
)
def test_a_url_naming_no_fetchable_host_is_malformed_and_says_why(url, why):
    assert malformed(url) == why


@pytest.mark.parametrize(
    "url",
    [
        "https://doi.org/10.1234/abc",
        "http://[::1]:8080/a",
        "https://bücher.example/a",
        "https://x.example:8443/",
        "https://x.example/" + "a" * 1_000_000,
    ],
)
def test_a_url_with_a_valid_host_and_port_is_not_malformed(url):
    assert malformed(url) is None


def _attempts(count):
    return [attempt("doi-literal", f"10.1234/{n}", "not-found", 1) for n in range(count)]


def test_evidence_within_its_cap_is_kept_whole():
    assert capped(_attempts(5), 5) == _attempts(5)


def test_evidence_past_its_cap_keeps_its_first_and_last_attempts_and_counts_the_rest_with_their_requests():
    kept = capped(_attempts(2_000), 5)
    assert kept == [
        *_attempts(2),
        attempt("evidence-cap", None, "1996 more attempts not listed", 1996),
        *_attempts(2_000)[-2:],
    ]


def test_the_first_pieces_of_a_megabyte_of_distinct_dois_are_the_first_in_the_text():
    text = " ".join(f"10.1234/d{n}" for n in range(70_000))
    assert pieces(text, limit=3) == ["10.1234/d0", "10.1234/d1", "10.1234/d2"]


def test_a_later_pass_finding_a_piece_earlier_in_the_text_moves_it_within_the_first_pieces():
    text = '10.1234/a 10.1234/b <a href="10.1234/a">x</a> 10.1234/c'
    assert pieces(text, limit=2) == ["10.1234/a", "10.1234/b"]
