"""landing_dev/sandbox/vectors.py with a landing-page corpus: the real pages served at their page URLs, their DOIs
registered there with no title."""

import json

import pytest

from landing_dev.sandbox.vectors import build

SHARED = "https://journals.plos.org/plosone/article?id=10.1371/journal.pone.0213978"
MANIFEST = (
    "file,doi,page_url\n"
    f"pages/033-plos.html,10.1371/journal.pone.0213978,{SHARED}\n"
    "pages/008-acs.html,10.1021/acscombsci.5b00087,\n"
    "pages/018-hal-NEGATIVE.html,,https://theses.hal.science/tel-02083632\n"
)
VECTORS = [
    {"url": SHARED, "doi": "10.1371/journal.pone.0213978", "kind": "url-query"},
    {"url": "https://example.org/article/5", "doi": "10.5555/12345678", "kind": "page-only"},
]


def _built(tmp_path, shape):
    """(the corpus folder, {doi: record}, {url: route}) of a world built with a small corpus in that shape."""
    corpus = tmp_path / "corpus"
    (corpus / "pages").mkdir(parents=True)
    (corpus / "manifest.csv").write_text(MANIFEST)
    for name in ("033-plos", "008-acs", "018-hal-NEGATIVE"):
        (corpus / "pages" / f"{name}.html").write_text(f"<html><head><title>{name}</title></head></html>")
    build(VECTORS, tmp_path / "world", shape, corpus=corpus)
    read = lambda name: [json.loads(line) for line in open(tmp_path / "world" / name)]  # noqa: E731
    return corpus.resolve(), {r["doi"]: r for r in read("dois.jsonl")}, {r["url"]: r for r in read("routes.jsonl")}


@pytest.fixture
def world(tmp_path):
    return _built(tmp_path, "friendly")


def test_a_corpus_page_replaces_the_vectors_page_at_its_url(world):
    corpus, _, routes = world
    assert routes[SHARED] == {"url": SHARED, "body_file": str(corpus / "pages" / "033-plos.html")}


def test_a_corpus_doi_is_registered_at_its_page_url_with_no_title(world):
    _, records, _ = world
    record = records["10.1371/journal.pone.0213978"]
    assert (record["url"], record["title"], record["member"]) == (SHARED, None, "10.1371")


def test_a_vectors_doi_keeps_its_registered_title_and_its_page_states_it(world):
    _, records, routes = world
    title = records["10.5555/12345678"]["title"]
    assert title and f'content="{title}"' in routes["https://example.org/article/5"]["body"]


def test_a_corpus_row_without_a_page_url_gets_a_page_of_its_own_and_a_page_of_no_doi_is_served(world):
    corpus, records, routes = world
    assert records["10.1021/acscombsci.5b00087"]["url"] == "https://corpus.example/008-acs"
    assert routes["https://theses.hal.science/tel-02083632"]["body_file"] == str(
        corpus / "pages" / "018-hal-NEGATIVE.html"
    )


def test_elsewhere_a_corpus_doi_resolves_to_another_path_of_its_host_serving_the_same_page(tmp_path):
    corpus, records, routes = _built(tmp_path, "elsewhere")
    abstract = "https://journals.plos.org/article-abstract/plosone/article"
    page = str(corpus / "pages" / "033-plos.html")
    assert (
        records["10.1371/journal.pone.0213978"]["url"],
        routes[abstract]["body_file"],
        routes[SHARED]["body_file"],
    ) == (
        abstract,
        page,
        page,
    )
