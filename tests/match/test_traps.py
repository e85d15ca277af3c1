"""Evidence against a candidate outweighs the domain's record: a hand-written world of the traps real pages set.

One site the artifact confirms for its prefix. Its page for work A names work B in its meta tag (B is registered
and resolves to B's own page on the same site); another page names a DOI the registry does not know. Against
them, pages whose URL states their meta tag's DOI too: an older version's full text, and a mirror on another host.
And a reference work's entry, whose URL holds the book's DOI (registered, resolving to the book's page). Every
work has a registered title and its page states it: a full text whose DOI resolves to its abstract on the same
site, and an aggregator's record of a work, are matched by that title; a page naming another work is not.
"""

import json

import pytest

from landing_dev.sandbox.server import RunningSandbox
from tests.sampler.crawling import Stores

SITE = "https://traps.example"
DOIS = {
    "10.99001/a": f"{SITE}/article/a",
    "10.99001/b": f"{SITE}/article/b",
    "10.99001/c": f"{SITE}/article/c",
    "10.99001/2020.12345": f"{SITE}/content/10.99001/2020.12345v2",
    "10.99001/book.001.0001": f"{SITE}/view/10.99001/book.001.0001",
    "10.99001/book.013.1357": f"{SITE}/view/10.99001/book.001.0001/book-e-1357",
    "10.99001/e": f"{SITE}/journals/x/article-abstract/77",
    "10.99001/g": f"{SITE}/journals/x/article/g",
}
# The site confirmed for its prefix; the mirror and the aggregator known for another prefix only (`recognised-domain`).
_OTHER = {"10.99002": {"domain-recognised": True, "domain-confirmed": False}}
ARTIFACT = {
    "domains-prefixes": {
        "traps.example": {"10.99001": {"domain-recognised": True, "domain-confirmed": True}},
        "mirror.example": _OTHER,
        "aggregator.example": _OTHER,
    }
}
# A legacy URL served without a redirect, its canonical link the URL its DOI resolves to.
CANONICAL = {f"{SITE}/content/5/1/legacy-g": "/journals/x/article/g"}


def title(doi: str) -> str:
    return f"On the registered work {doi.split('/')[1]} and its many pages"


def _page(doi: str, work: str | None, canonical: str | None = None) -> str:
    """A page naming doi in its meta tag, about the work `work` (a DOI: its title is that work's; None: an
    editorial, whose title could be many works'), with its canonical link if it has one."""
    named = title(work) if work else "Editorial"
    link = f'<link rel="canonical" href="{canonical}">' if canonical else ""
    return (
        f'<html><head><meta name="citation_doi" content="{doi}"><meta name="citation_title" '
        f'content="{named}"><title>{named} | Trap Press</title>{link}</head><body>text</body></html>'
    )


def attempts(result: dict) -> list[list]:
    """A result's evidence as [step, candidate, outcome] triples."""
    return [[e["step"], e["candidate"], e["outcome"]] for e in result["evidence"]]


@pytest.fixture(scope="module")
def matched(tmp_path_factory):
    world = tmp_path_factory.mktemp("traps")
    (world / "world.json").write_text(
        json.dumps(
            {
                "format": "landing-sandbox/1",
                "members": [{"id": "1", "primary-name": "Trap Press", "prefixes": ["10.99001"]}],
            }
        )
    )
    records = [{"doi": d, "ra": "crossref", "member": "1", "url": u, "title": title(d)} for d, u in DOIS.items()]
    (world / "dois.jsonl").write_text("".join(json.dumps(record) + "\n" for record in records))
    routes = [
        (f"{SITE}/article/a", "10.99001/b", "10.99001/a"),
        (f"{SITE}/article/b", "10.99001/b", "10.99001/b"),
        (f"{SITE}/article/c", "10.99001/c", "10.99001/c"),
        (f"{SITE}/article/d", "10.99001/not.registered", "10.99001/not.registered"),
        (f"{SITE}/content/10.99001/2020.12345v1.full", "10.99001/2020.12345", "10.99001/2020.12345"),
        ("https://mirror.example/papers/2020.12345", "10.99001/2020.12345", "10.99001/2020.12345"),
        (f"{SITE}/view/10.99001/book.001.0001", "10.99001/book.001.0001", "10.99001/book.001.0001"),
        (f"{SITE}/view/10.99001/book.001.0001/book-e-1357", "10.99001/book.013.1357", "10.99001/book.013.1357"),
        (f"{SITE}/journals/x/fullarticle/77", "10.99001/e", "10.99001/e"),
        (f"{SITE}/journals/x/article-abstract/77", "10.99001/e", "10.99001/e"),
        ("https://aggregator.example/record/9", "10.99001/c", "10.99001/c"),
        ("https://aggregator.example/record/10", "10.99001/c", "10.99001/a"),
        (f"{SITE}/article/f", "10.99001/b", None),
        (f"{SITE}/content/5/1/legacy-g", "10.99001/g", None),
        (f"{SITE}/journals/x/article/g", "10.99001/g", None),
    ]
    (world / "routes.jsonl").write_text(
        "".join(json.dumps({"url": u, "body": _page(d, w, CANONICAL.get(u))}) + "\n" for u, d, w in routes)
    )
    artifact = world / "decisions.json"
    artifact.write_text(json.dumps(ARTIFACT))
    sandbox = RunningSandbox(world)
    try:
        stores = Stores(tmp_path_factory.mktemp("stores"))
        done = stores.scrapy(
            "match",
            "--artifact",
            str(artifact),
            "--fetch-all",  # the mirror's and the aggregator's hosts are not the artifact's: their pages are read too
            *[u for u, _, _ in routes if "abstract" not in u],
            overrides=["-s", f"LANDING_SANDBOX={sandbox.proxy}"],
        )
    finally:
        sandbox.close()
    assert done.returncode == 0, done.stderr[-3000:]
    return {line["input"].rsplit("/", 1)[1]: line for line in map(json.loads, done.stdout.splitlines())}


def test_a_mirror_whose_url_states_its_meta_tags_doi_is_matched_by_its_domain_with_the_check_stated_in_url(matched):
    got = matched["2020.12345"]
    assert (got["doi"], got["method"], got["verification"], got["checks"]) == (
        "10.99001/2020.12345",
        "landing-page-meta-tag",
        "recognised-domain",
        ["stated-in-url"],
    )


def test_an_older_versions_full_text_holding_the_doi_in_its_url_gets_that_doi(matched):
    assert matched["2020.12345v1.full"]["doi"] == "10.99001/2020.12345"


def test_an_entry_inside_a_books_url_is_its_own_doi_not_the_books_the_domain_is_confirmed_for(matched):
    got = matched["book-e-1357"]
    assert (got["doi"], got["method"], got["verification"]) == (
        "10.99001/book.013.1357",
        "landing-page-meta-tag",
        "checked-url-exact",
    )


def test_a_meta_tag_naming_another_page_of_the_same_site_is_not_vouched_for_by_the_domain(matched):
    assert matched["a"]["doi"] is None
    assert ["landing-page-meta-tag", "10.99001/b", "another-page-of-this-site"] in attempts(matched["a"])


def test_the_page_the_doi_resolves_to_is_still_matched_by_it(matched):
    assert (matched["b"]["doi"], matched["b"]["verification"]) == ("10.99001/b", "checked-url-exact")


def test_a_meta_tag_doi_the_registry_does_not_know_never_comes_back(matched):
    assert matched["d"]["doi"] is None
    assert ["landing-page-meta-tag", "10.99001/not.registered", "not-found"] in attempts(matched["d"])


def test_a_match_names_the_artifact_it_was_decided_with(matched, tmp_path):
    from landing.core.matching.decisions import Decisions

    version = Decisions.read(json.dumps(ARTIFACT)).version
    assert matched["b"]["evidence"][-1] == {"step": "artifact", "candidate": None, "outcome": version, "requests": 0}
    assert version.startswith("sha256:") and len(version) == len("sha256:") + 16
    assert all(e["step"] != "artifact" for e in matched["a"]["evidence"])  # no match, nothing decided


def test_a_full_text_whose_doi_resolves_to_its_abstract_on_the_same_site_is_matched_by_its_title(matched):
    got = matched["77"]
    assert (got["doi"], got["method"], got["verification"], got["checks"]) == (
        "10.99001/e",
        "landing-page-meta-tag",
        "confirmed-domain-prefix",
        ["registered-title"],
    )
    assert ["landing-page-meta-tag", "10.99001/e", "title matches"] in attempts(got)


def test_an_aggregators_record_stating_the_works_title_is_matched_by_it(matched):
    got = matched["9"]
    assert (got["doi"], got["verification"], got["checks"]) == ("10.99001/c", "recognised-domain", ["registered-title"])


def test_an_aggregators_page_naming_a_doi_under_another_works_title_gets_none(matched):
    assert matched["10"]["doi"] is None
    assert attempts(matched["10"])[-2:] == [
        ["landing-page-meta-tag", "10.99001/c", "title differs"],
        ["landing-page-meta-tag", "10.99001/c", "another-work-by-its-title"],
    ]


def test_a_page_whose_title_could_be_many_works_costs_no_title_lookup_and_gets_none(matched):
    assert matched["f"]["doi"] is None
    assert [e["outcome"] for e in matched["f"]["evidence"] if e["candidate"] == "10.99001/b"][-1] == (
        "another-page-of-this-site"
    )
    assert not any("title" in e["outcome"] for e in matched["f"]["evidence"])


def test_a_legacy_url_whose_canonical_link_is_where_its_doi_resolves_is_matched_checked(matched):
    got = matched["legacy-g"]
    assert (got["doi"], got["verification"], got["checks"], got["subj_id"]) == (
        "10.99001/g",
        "checked-url-basic",
        ["resolves-to-canonical-url"],
        f"{SITE}/journals/x/article/g",
    )
