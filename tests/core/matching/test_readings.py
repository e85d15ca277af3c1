"""landing.core.matching.readings: literal DOIs and shortDOIs, PIIs, URL candidates, page rankings, the names of methods and verifications."""

import pytest

from landing.core.matching.readings import (
    MAX_URL_CANDIDATES,
    METHODS,
    VERIFICATIONS,
    attempt,
    literal,
    pii,
    pii_variants,
    rank_meta_dois,
    rank_text_dois,
    url_candidates,
)

DOI = "10.1371/journal.pone.0160617"
SICI = "10.1002/(sici)1097-4636(199706)35:4<447::aid-jbm5>3.0.co;2-g"


@pytest.mark.parametrize(
    "written",
    [
        DOI,
        "10.1371/JOURNAL.PONE.0160617",
        "doi:10.1371/journal.pone.0160617",
        "DOI: 10.1371/journal.pone.0160617",
        "https://doi.org/10.1371/journal.pone.0160617",
        "http://dx.doi.org/10.1371/journal.pone.0160617",
        "doi.org/10.1371/journal.pone.0160617",
        "https://www.doi.org/10.1371/journal.pone.0160617",
        "www.doi.org/10.1371/journal.pone.0160617",
        "info:doi/10.1371/journal.pone.0160617",
        "10.1371%2Fjournal.pone.0160617",
        "https://doi.org/10.1371%2Fjournal.pone.0160617",
        '"10.1371/journal.pone.0160617"',
        "\u201c10.1371/journal.pone.0160617\u201d",
        "(doi:10.1371/journal.pone.0160617)",
        "[10.1371/journal.pone.0160617]",
        "<https://doi.org/10.1371/journal.pone.0160617>",
        "10.1371/journal.pone.0160617.",
        "10.1371/journal.pone.0160617,",
        "10.1371/journal.pone.0160617;",
        "  10.1371/journal.pone.0160617\n",
    ],
)
def test_literal_reads_a_doi_in_any_form(written):
    assert literal(written) == ("doi", DOI)


def test_literal_drops_the_query_and_fragment_of_a_resolver_url():
    assert literal("https://doi.org/10.1371/journal.pone.0160617?utm_source=twitter#x") == ("doi", DOI)


def test_literal_keeps_an_encoded_question_mark_of_a_resolver_url():
    assert literal("https://doi.org/10.1234/a%3Fb") == ("doi", "10.1234/a?b")


def test_literal_keeps_the_angle_brackets_of_a_sici_doi_wrapped_in_angle_brackets():
    assert literal("<doi:10.1002/(SICI)1097-4636(199706)35:4<447::AID-JBM5>3.0.CO;2-G>") == ("doi", SICI)


def test_literal_keeps_a_closing_parenthesis_that_the_doi_opened():
    assert literal("(10.1234/abc(1))") == ("doi", "10.1234/abc(1)")


@pytest.mark.parametrize(
    "written",
    [
        "10/abc12",
        "10/ABC12",
        "doi:10/abc12",
        "https://doi.org/10/abc12",
        "https://doi.org/abc12",
        "http://dx.doi.org/abc12",
        "<https://doi.org/abc12>.",
        "https://doi.org/abc12?utm_source=x",
        "https://www.doi.org/10/abc12",
    ],
)
def test_literal_reads_a_short_doi_in_any_form(written):
    assert literal(written) == ("short", "10/abc12")


@pytest.mark.parametrize(
    "written",
    [
        "https://journals.plos.org/plosone/article?id=10.1371/journal.pone.0160617",
        "https://example.org/10.1371/journal.pone.0160617",
        "https://doi.org/",
        "https://doi.org/Search",
        "https://doi.org/help.html",
        "https://doi.org/abc/def",
        "https://www.doi.org/factsheets/Identifier_Interoper.html",
        "10.1371",
        "10.1371/",
        "10.12/abc",
        "10.1371/ journal",
        "S0169534701023801",
        "hello",
        "",
    ],
)
def test_literal_is_none_for_anything_but_one_doi_or_short_doi(written):
    assert literal(written) is None


@pytest.mark.parametrize(
    "written, expected",
    [
        ("https://www.sciencedirect.com/science/article/pii/S0169534701023801", "S0169534701023801"),
        ("https://www.sciencedirect.com/science/article/abs/pii/s0169534701023801", "S0169534701023801"),
        ("https://linkinghub.elsevier.com/retrieve/pii/S0022460X0300001X", "S0022460X0300001X"),
        ("http://api.elsevier.com/content/article/PII:S0169534701023801?httpAccept=text/plain", "S0169534701023801"),
        ("https://example.org/lookup?pii=S0169534701023801&x=1", "S0169534701023801"),
        ("https://www.cell.com/trends/ecology-evolution/fulltext/S0169-5347(01)02380-1", "S0169534701023801"),
        ("https://www.cell.com/fulltext/S0169-5347%2801%2902380-1", "S0169534701023801"),
        ("https://www.thelancet.com/journals/lancet/article/PIIS0140-6736(20)30183-5/fulltext", "S0140673620301835"),
        ("PII: S0169-5347(01)02380-1.", "S0169534701023801"),
        ("S0169534701023801", "S0169534701023801"),
        ("S232251141300001-2", "S2322511413000012"),
        ("https://www.sciencedirect.com/science/article/pii/B978012345678500012X", "B978012345678500012X"),
        ("https://www.sciencedirect.com/science/article/pii/B012345678X500012", "B012345678X500012"),
    ],
)
def test_pii_reads_the_unformatted_identifier(written, expected):
    assert pii(written) == expected


@pytest.mark.parametrize(
    "written",
    [
        "https://example.org/S0169534701023801",
        "https://example.org/item/S12345678901234567890",
        "https://example.org/ABCDEF0123456789XYZ",
        "https://www.sciencedirect.com/science/article/pii/S01695347",
        "https://www.sciencedirect.com/science/article/pii/S0169534701023801abc",
        "https://www.sciencedirect.com/science/article/pii/S01695347010238011",
        "a3f9c2e1b4d5f6a7b8c9d0e1f2a3b4c5",
        "",
    ],
)
def test_pii_is_none_for_things_that_merely_look_long_and_alphanumeric(written):
    assert pii(written) is None


def test_pii_variants_give_the_unformatted_then_the_formatted_form():
    assert pii_variants("S0169534701023801") == ["S0169534701023801", "S0169-5347(01)02380-1"]


def test_pii_variants_of_a_book_pii_are_only_the_unformatted_form():
    assert pii_variants("B012345678X500012") == ["B012345678X500012"]


def test_pii_variants_of_no_pii_are_empty():
    assert pii_variants("hello") == []


def test_url_candidates_read_a_doi_from_a_query_parameter():
    url = "https://journals.plos.org/plosone/article?id=10.1371/journal.pone.0160617"
    assert url_candidates(url) == [DOI]


def test_url_candidates_cut_a_query_parameter_doi_at_the_next_parameter():
    url = "https://www.informaworld.com/openurl?genre=article&doi=10.1300/J148V01N03_03&magic=crossref"
    assert url_candidates(url) == ["10.1300/j148v01n03_03&magic=crossref", "10.1300/j148v01n03_03"]


@pytest.mark.parametrize(
    "url, expected",
    [
        (
            "https://onlinelibrary.wiley.com/doi/10.1111/nicc.12290/abstract",
            ["10.1111/nicc.12290/abstract", "10.1111/nicc.12290"],
        ),
        (
            "https://www.frontiersin.org/articles/10.3389/fpsyg.2016.01234/full",
            ["10.3389/fpsyg.2016.01234/full", "10.3389/fpsyg.2016.01234"],
        ),
        (
            "https://link.springer.com/content/pdf/10.1007/s00423-015-1364-1.pdf",
            ["10.1007/s00423-015-1364-1.pdf", "10.1007/s00423-015-1364-1"],
        ),
        ("https://onlinelibrary.wiley.com/doi/10.1111/nicc.12290;jsessionid=ABC", ["10.1111/nicc.12290"]),
        (
            "https://onlinelibrary.wiley.com/doi/full/10.1111/nicc.12290#section",
            ["10.1111/nicc.12290#section", "10.1111/nicc.12290"],
        ),
        (
            "https://link.springer.com/article/10.1007/s11906-017-0700-y?utm_source=x",
            ["10.1007/s11906-017-0700-y?utm_source=x", "10.1007/s11906-017-0700-y"],
        ),
        ("https://example.org/10.1234/abc&x=y", ["10.1234/abc&x=y", "10.1234/abc"]),
    ],
)
def test_url_candidates_offer_the_doi_without_the_junk_after_it(url, expected):
    assert url_candidates(url) == expected


def test_url_candidates_decode_a_url_encoded_doi():
    assert url_candidates("http://link.springer.com/article/10.1007%2Fs00423-015-1364-1") == [
        "10.1007/s00423-015-1364-1"
    ]


def test_url_candidates_decode_a_double_encoded_doi():
    assert url_candidates("https://example.org/x?doi=10.1371%252Fjournal.pone.0160617") == [DOI]


def test_url_candidates_keep_the_characters_of_a_sici_doi():
    url = (
        "https://onlinelibrary.wiley.com/doi/10.1002/(SICI)1097-4636(199706)35:4%3C447::AID-JBM5%3E3.0.CO;2-G/abstract"
    )
    assert url_candidates(url) == [SICI + "/abstract", SICI, "10.1002/(sici)1097-4636(199706)35:4<447::aid-jbm5>3.0.co"]


def test_url_candidates_drop_a_session_id_after_a_sici_doi():
    url = (
        "http://onlinelibrary.wiley.com/doi/10.1002/1521-3951(200009)221:1<453::AID-PSSB453>3.0.CO;2-Q/abstract;"
        "jsessionid=FAD5B5661A7D092460BEEDA0D55204DF.f02t01"
    )
    assert url_candidates(url)[:2] == [
        "10.1002/1521-3951(200009)221:1<453::aid-pssb453>3.0.co;2-q/abstract",
        "10.1002/1521-3951(200009)221:1<453::aid-pssb453>3.0.co;2-q",
    ]


def test_url_candidates_cut_at_the_first_and_the_last_slash_after_the_doi():
    url = (
        "http://www.ijorcs.org/manuscript/id/12/doi:10.7815/ijorcs.21.2011.012/arul-anitha/"
        "network-security-using-linux-intrusion-detection-system"
    )
    assert url_candidates(url) == [
        "10.7815/ijorcs.21.2011.012/arul-anitha/network-security-using-linux-intrusion-detection-system",
        "10.7815/ijorcs.21.2011.012/arul-anitha",
        "10.7815/ijorcs.21.2011.012",
    ]


def test_url_candidates_strip_a_highwire_view_and_preprint_version():
    assert url_candidates("https://www.biorxiv.org/content/10.1101/2020.03.01.972935v1.full.pdf") == [
        "10.1101/2020.03.01.972935v1.full.pdf",
        "10.1101/2020.03.01.972935v1.full",
        "10.1101/2020.03.01.972935v1",
        "10.1101/2020.03.01.972935",
    ]


def test_url_candidates_keep_a_figshare_version_that_is_part_of_the_doi():
    assert url_candidates("https://example.org/10.6084/m9.figshare.3423371.v1") == ["10.6084/m9.figshare.3423371.v1"]


def test_url_candidates_offer_each_of_two_dois_in_url_order():
    assert url_candidates("https://example.org/compare/10.1234/abc/with/10.5678/def") == [
        "10.1234/abc/with/10.5678/def",
        "10.1234/abc/with/10.5678",
        "10.1234/abc",
        "10.5678/def",
    ]


def test_url_candidates_of_a_url_without_a_doi_are_empty():
    assert url_candidates("https://www.jstor.org/stable/3179886?origin=crossref") == []


def test_url_candidates_ignore_a_doi_shape_inside_a_longer_number():
    assert url_candidates("https://example.org/item/110.1234/abc") == []


def test_url_candidates_are_capped():
    url = "https://example.org/" + "/".join(f"x/10.{1000 + n}/a{n}" for n in range(30))
    assert len(url_candidates(url)) == MAX_URL_CANDIDATES


def test_rank_meta_dois_are_distinct_in_page_order_whatever_the_form():
    tags = [
        ["citation_doi", "10.5555/B"],
        ["dc.identifier", "doi:10.5555/A"],
        ["DC.Identifier", "https://doi.org/10.5555/b"],
    ]
    assert rank_meta_dois(tags) == ["10.5555/b", "10.5555/a"]


def test_rank_meta_dois_ignore_tags_that_are_not_doi_tags():
    assert rank_meta_dois([["citation_reference", "10.5555/cited"], ["citation_doi", "10.5555/own"]]) == ["10.5555/own"]


def test_rank_meta_dois_ignore_contents_that_are_not_one_doi():
    tags = [["dc.identifier", "ISBN 978-0-12"], ["dc.identifier", "https://doi.org/abc12"], ["doi", "10.5555/own"]]
    assert rank_meta_dois(tags) == ["10.5555/own"]


def test_rank_text_dois_put_prefixes_known_on_the_domain_first_then_page_order():
    dois = ["10.1000/ref1", "10.5555/own", "10.2000/ref2", "10.5555/other"]
    assert rank_text_dois(dois, {"10.5555"}) == ["10.5555/own", "10.5555/other", "10.1000/ref1", "10.2000/ref2"]


def test_rank_text_dois_are_distinct_and_normalised():
    assert rank_text_dois(["10.5555/A", "10.5555/a", "doi:10.5555/a"], set()) == ["10.5555/a"]


def test_rank_text_dois_are_capped():
    assert rank_text_dois([f"10.1000/ref{n}" for n in range(300)], set(), cap=3) == [
        "10.1000/ref0",
        "10.1000/ref1",
        "10.1000/ref2",
    ]


def test_attempt_is_an_evidence_record():
    assert attempt("landing-page-url", "10.5555/x", "not-found", 1) == {
        "step": "landing-page-url",
        "candidate": "10.5555/x",
        "outcome": "not-found",
        "requests": 1,
    }


def test_methods_are_the_design_names_cheapest_first():
    assert METHODS == ("doi-literal", "pii", "landing-page-url", "landing-page-meta-tag", "landing-page-page-text")


def test_verifications_are_exactly_the_seeds_seven_best_first():
    assert VERIFICATIONS == (
        "literal",
        "lookup",
        "checked-url-exact",
        "checked-url-basic",
        "confirmed-domain-prefix",
        "recognised-domain-prefix",
        "recognised-domain",
    )
