import pytest

from landing.core.matching.exclusions import DOMAINS, VERSION, ExclusionsError, excluded, parse_exclusions


def test_an_excluded_domain_excludes_itself_and_its_subdomains_only():
    exclusions = frozenset({"youtube.com"})
    assert [
        excluded(d, exclusions)
        for d in (
            "youtube.com",
            "m.youtube.com",
            "YouTube.com.",
            "notyoutube.com",
            "youtube.com.evil.example",
            "com",
            None,
        )
    ] == [True, True, True, False, False, False, False]


def test_an_exclusion_list_reads_one_domain_a_line_with_comments_and_blank_lines():
    text = "# video\nYouTube.com\n\nvimeo.com   # talks\n"
    assert parse_exclusions(text) == {"youtube.com", "vimeo.com"}


@pytest.mark.parametrize("line", ["https://youtube.com/", "youtube.com/watch", "localhost", "two words.com"])
def test_a_line_that_is_not_a_domain_is_refused_naming_it(line):
    with pytest.raises(ExclusionsError, match=r"line 2: .* is not a domain"):
        parse_exclusions(f"vimeo.com\n{line}\n")


def test_the_shipped_list_is_versioned_and_reads_back_as_itself():
    assert VERSION and parse_exclusions("\n".join(DOMAINS)) == set(DOMAINS)
    assert excluded("www.youtube.com", frozenset(DOMAINS)) and not excluded("journals.plos.org", frozenset(DOMAINS))
