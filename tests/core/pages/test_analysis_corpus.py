"""analyse() on the corpus's real landing pages (docs/testing.md "The corpus") against the manifest's
doi_in_meta/links/text columns.

The manifest's columns are looser than the analysis: doi_in_meta is "any meta content contains the DOI" (description,
og:url ... too) and doi_in_links is "any <a>/<link>/<area> href contains the DOI, on any host"; the analysis counts only
DOI meta names and <a href> values that are the DOI itself. The rows where that difference shows are listed in
EXCEPTIONS with the reason, read from each row's notes; every other row must agree exactly.
"""

import csv
import re
from pathlib import Path

import pytest

from landing.core.pages.page import Page
from landing_dev.sandbox.corpus import FOLDER

CORPUS = FOLDER / "landing-pages"
if not (CORPUS / "manifest.csv").is_file():
    pytest.skip(
        f"no landing-page corpus at {CORPUS} (third-party pages, kept outside the repo)", allow_module_level=True
    )

COLUMNS = {
    "doi_in_meta": "analysis/doi-in-meta-tags",
    "doi_in_links": "analysis/doi-in-hyperlinks",
    "doi_in_text": "analysis/doi-in-text",
}
NO_DIRECT_LINK = "no direct doi.org link; DOI appears only inside other hrefs"
# (page number, column) -> why the manifest says yes and the analysis finds nothing.
EXCEPTIONS = {
    ("005", "doi_in_links"): "the dx.doi.org URL is only in <link rel=meta> elements of the head (body snipped)",
    ("006", "doi_in_links"): "only a <link> to the publisher's own article URL containing the DOI",
    ("019", "doi_in_links"): "only share/sign-in/export URLs containing the DOI (facebook, twitter, mendeley ...)",
    ("020", "doi_in_links"): "only share/sign-in/export/crossmark URLs containing the DOI",
    ("023", "doi_in_links"): "only /shoppingcart?urlId=<doi> and sign-in redirects",
    ("028", "doi_in_links"): "only springer.com article, metrics and citation URLs containing the DOI",
    ("029", "doi_in_links"): "only springer.com article, metrics and citation URLs containing the DOI",
    ("041", "doi_in_links"): "only share URLs wrapping http://dx.doi.org/<doi> (citeulike, facebook ...) and readcube",
    ("042", "doi_in_links"): "only PLOS info:doi/ article URLs and share URLs wrapping dx.plos.org/<doi>",
    ("056", "doi_in_links"): "only Thieme's own /products/ejournals/.../<doi> URLs and eref.thieme.de/<doi>",
    ("043", "doi_in_meta"): "PubMed: the DOI is only inside the description meta ('... doi: 10.1016/...')",
}


def rows():
    with (CORPUS / "manifest.csv").open(newline="", encoding="utf-8") as lines:
        return [row for row in csv.DictReader(lines) if row["doi"].strip()]


@pytest.fixture(scope="module")
def analyses():
    return {row["file"]: Page((CORPUS / row["file"]).read_bytes()).analysis(row["doi"]) for row in rows()}


@pytest.mark.parametrize("row", rows(), ids=lambda row: Path(row["file"]).stem)
def test_analysis_agrees_with_the_manifest_columns_except_where_listed(row, analyses):
    number = Path(row["file"]).name[:3]
    result = analyses[row["file"]]
    found = {column: "yes" if result[key] is not None else "no" for column, key in COLUMNS.items()}
    expected = {column: "no" if (number, column) in EXCEPTIONS else row[column] for column in COLUMNS}
    assert found == expected


def row_of(number: str) -> dict:
    return next(row for row in rows() if Path(row["file"]).name.startswith(number))


@pytest.mark.parametrize("number, column", sorted(EXCEPTIONS))
def test_each_exception_is_a_yes_of_the_manifest(number, column):
    assert row_of(number)[column] == "yes"


@pytest.mark.parametrize("number", sorted(n for n, column in EXCEPTIONS if column == "doi_in_links" and n != "005"))
def test_each_link_exception_is_a_page_the_manifest_notes_as_without_a_doi_org_link(number):
    assert NO_DIRECT_LINK in row_of(number)["notes"]


def test_the_informs_page_has_its_doi_org_url_only_in_link_elements():
    # Atypon's content-negotiation links (<link rel="meta" href="http://dx.doi.org/10.1287%2F...">): not hyperlinks
    page = (CORPUS / row_of("005")["file"]).read_bytes()
    assert re.findall(rb"<(\w+)[^>]*doi\.org/10\.1287%2Fmnsc\.2016\.2427", page) == [b"link"] * 3


def test_the_meta_exception_is_the_page_whose_notes_say_description_meta_only():
    row = row_of("043")
    assert (row["doi_in_meta"], "only inside the description meta" in row["notes"]) == ("yes", True)


def test_every_page_stating_its_doi_in_meta_tags_states_it_correctly(analyses):
    stated = {f: r["analysis/meta-tag-correctness"] for f, r in analyses.items() if r["analysis/doi-in-meta-tags"]}
    assert set(stated.values()) == {"ok"} and len(stated) == 52


def test_the_supplement_links_around_the_doi_are_not_the_doi(analyses):
    result = analyses[row_of("062")["file"]]
    assert (result["analysis/doi-in-hyperlinks"], result["analysis/doi-in-text"]) == (None, "https-doi")


def test_the_malformed_citation_doi_of_project_euclid_is_ignored(analyses):
    result = analyses[row_of("024")["file"]]
    assert ["citation_doi", "ade/1391109086"] in result["analysis/meta-tags"]
    assert (result["analysis/meta-tag-correctness"], result["analysis/doi-in-meta-tags"]) == ("ok", "https-doi")
