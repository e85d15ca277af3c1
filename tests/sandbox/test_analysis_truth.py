"""The truth's analysis fields read off page specs."""

from landing_dev.sandbox.analysis_truth import expression_of, page_truth

DOI = "10.5555/1234"


def test_object_form_meta_items_are_read_like_list_items():
    page = {"meta": [{"name": "citation_doi", "content": DOI}, ["DC.Identifier", "doi:" + DOI]]}
    truth = page_truth(DOI, page)
    assert (truth["meta_tag_correctness"], truth["doi_in_meta_tags"]) == ("ok", "doi-scheme")


def test_placeholder_only_is_incorrect_and_states_no_own_doi():
    truth = page_truth(DOI, {"meta": [["citation_doi", "10.5555/987654321"]]})
    assert (truth["meta_tag_correctness"], truth["doi_in_meta_tags"]) == ("incorrect", None)


def test_own_and_other_doi_is_a_conflict():
    truth = page_truth(DOI, {"meta": [["citation_doi", DOI], ["dc.identifier", "10.5555/12345"]]})
    assert truth["meta_tag_correctness"] == "conflict"


def test_non_doi_meta_values_are_ignored():
    truth = page_truth(DOI, {"meta": [["dc.identifier", "PMID:123456"], ["citation_doi", DOI]]})
    assert truth["meta_tag_correctness"] == "ok"


def test_doi_label_with_a_space_is_non_url_but_doi_colon_is_the_scheme():
    assert (expression_of("DOI: " + DOI), expression_of("doi:" + DOI)) == ("non-url", "doi-scheme")


def test_encoded_doi_org_link_counts_as_https_doi():
    truth = page_truth(DOI, {"links": [["https://doi.org/10.5555%2F1234", "Permalink"]]})
    assert (truth["doi_in_hyperlinks"], truth["doi_in_text"]) == ("https-doi", None)
