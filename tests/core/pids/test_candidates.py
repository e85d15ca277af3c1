"""Candidate DOIs cut from a string: the same cuts as ever on real URLs, and a cost linear in the input, whatever
it repeats (issue 29: each DOI occurrence kept the rest of the line, and every stripped variant of it)."""

import tracemalloc

from landing.core.pids.candidates import LONGEST, MAX_TAILS, stripped, url_candidates


def _peak_bytes(function, *args):
    """What function(*args) allocated at its peak, and its value."""
    tracemalloc.start()
    try:
        value = function(*args)
        return tracemalloc.get_traced_memory()[1], value
    finally:
        tracemalloc.stop()


def test_a_doi_followed_by_forty_kilobytes_of_pdf_tails_is_cut_within_a_megabyte():
    peak, found = _peak_bytes(url_candidates, "https://x.example/10.1234/abc" + ".pdf" * 10_000)
    assert (peak < 1_000_000, found) == (True, [])


def test_a_doi_followed_by_twenty_kilobytes_of_versions_is_cut_within_a_megabyte():
    peak, found = _peak_bytes(url_candidates, "https://x.example/10.1234/abc" + "v9" * 10_000)
    assert (peak < 1_000_000, found) == (True, [])


def test_a_doi_cut_at_a_separator_is_found_however_long_the_junk_after_it():
    assert url_candidates("https://x.example/10.1234/abc?x=" + "v9" * 20_000) == ["10.1234/abc"]


def test_an_occurrence_longer_than_any_doi_is_no_candidate_at_its_arbitrary_end():
    assert url_candidates("10.1234/" + "a" * (LONGEST + 1)) == []


def test_an_occurrence_as_long_as_the_longest_doi_is_still_a_candidate():
    assert url_candidates("10.1234/" + "a" * (LONGEST - 8)) == ["10.1234/" + "a" * (LONGEST - 8)]


def test_at_most_eight_tails_are_stripped_from_one_cut():
    assert stripped("10.1234/a" + "/full" * 20)[-1] == "10.1234/a" + "/full" * (20 - MAX_TAILS)


def test_the_tails_real_urls_stack_are_all_stripped():
    assert stripped("10.1101/2020.03.02.972935v1.full.pdf+html")[-1] == "10.1101/2020.03.02.972935"


def test_a_megabyte_of_doi_starts_giving_nothing_is_read_within_a_megabyte():
    peak, found = _peak_bytes(url_candidates, "10.1234//" * 110_000)
    assert (peak < 1_000_000, found) == (True, [])


def test_a_line_packed_with_dois_gives_at_most_the_cap_of_candidates_each_no_longer_than_a_doi():
    found = url_candidates("https://x.example/" + "/".join(f"10.1234/a{n}" for n in range(50_000)), cap=7)
    assert (len(found), max(map(len, found)) <= LONGEST) == (7, True)
