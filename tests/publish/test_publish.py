"""landing.publish: reports and a new artifact version rebuilt from the analyses in a document store."""

import json
from pathlib import Path

import pytest

from landing.core.pages import documents
from landing.publish import publish
from landing.stores.sqlite import SqliteDocStore

GOOD, BAD, DECISIONS = "prefixes-domains.csv", "prefixes-domains-bad.csv", "domain-decision-structure.json"
SEEN = "prefixes-domains-seen.csv"
DAY1, DAY2 = "2026-11-23T10:00:00Z", "2026-11-24T10:00:00Z"


def visit(doi, ra, member, final_url=None, error=None, found=None, when=DAY1):
    """An analysis document as the sampler stores it: a visit that reached final_url, or failed with error."""
    pid = documents.pid(doi, ra, member, when)
    snapshot = documents.snapshot(
        pid,
        timestamp=when,
        driver="http",
        final_url=final_url,
        error=error,
        resource_url=final_url,
        status=None if error else 200,
    )
    return documents.analysis(snapshot, found, when)


# The DOI states itself in its meta tags, correctly: good, recognised and confirmed.
PLOS = visit(
    "10.1371/journal.pone.0160617",
    "crossref",
    "340",
    "https://journals.plos.org/plosone/article?id=1",
    found={"analysis/doi-in-meta-tags": "https-doi", "analysis/meta-tag-correctness": "ok"},
)
# Reached, but the page never states its DOI: bad, recognised, not confirmed.
ZENODO = visit(
    "10.5281/zenodo.2",
    "datacite",
    "cern.zenodo",
    "https://zenodo.org/records/2",
    found={"analysis/meta-tag-correctness": "missing"},
)
# Never reached: its prefix is known, no domain.
TIMEOUT = visit("10.5555/3", "crossref", "7", error="timeout")


def store(path, *analyses):
    docs = SqliteDocStore(path)
    for doc in analyses:
        docs.put("analysis", documents.analysis_id(doc), doc)
    return docs


@pytest.fixture
def docs(tmp_path):
    made = store(tmp_path / "docs.db", PLOS, ZENODO, TIMEOUT)
    yield made
    made.close()


def lines(path):
    return path.read_text("utf-8").splitlines()


def test_the_good_csv_lists_each_prefix_with_the_domains_that_state_its_dois_or_alone(docs, tmp_path):
    publish(docs, tmp_path / "artifacts", report=False)
    assert lines(tmp_path / "artifacts" / GOOD) == [
        "10.1371,journals.plos.org,crossref",
        "10.5281,,datacite",
        "10.5555,,crossref",
    ]


def test_the_bad_csv_lists_the_domains_reached_whose_pages_never_state_the_doi(docs, tmp_path):
    publish(docs, tmp_path / "artifacts", report=False)
    assert lines(tmp_path / "artifacts" / BAD) == ["10.5281,zenodo.org,datacite"]


def test_the_seen_file_says_when_each_prefix_and_each_pair_was_first_and_last_seen(docs, tmp_path):
    publish(docs, tmp_path / "artifacts", report=False)
    assert lines(tmp_path / "artifacts" / SEEN) == [
        f"10.1371,,{DAY1},{DAY1}",
        f"10.1371,journals.plos.org,{DAY1},{DAY1}",
        f"10.5281,,{DAY1},{DAY1}",
        f"10.5281,zenodo.org,{DAY1},{DAY1}",
        f"10.5555,,{DAY1},{DAY1}",
    ]


def test_the_decision_structure_recognises_every_domain_reached_and_confirms_correct_meta_tags(docs, tmp_path):
    publish(docs, tmp_path / "artifacts", report=False)
    assert json.loads((tmp_path / "artifacts" / DECISIONS).read_text()) == {
        "domains": ["journals.plos.org", "zenodo.org"],
        "prefixes": ["10.1371", "10.5281", "10.5555"],
        "domains-prefixes": {
            "journals.plos.org": {
                "10.1371": {
                    "domain-recognised": True,
                    "domain-confirmed": True,
                    "visits": {"page": 1},
                    "first-seen": DAY1,
                    "last-seen": DAY1,
                }
            },
            "zenodo.org": {
                "10.5281": {
                    "domain-recognised": True,
                    "domain-confirmed": False,
                    "visits": {"page": 1},
                    "first-seen": DAY1,
                    "last-seen": DAY1,
                }
            },
        },
    }


def test_the_new_version_directory_holds_the_same_files_as_the_top(docs, tmp_path):
    version = Path(publish(docs, tmp_path / "artifacts", report=False)["version"])
    top = tmp_path / "artifacts"
    assert (version.parent, {name: (version / name).read_text() for name in (GOOD, BAD, DECISIONS, SEEN)}) == (
        top / "versions",
        {name: (top / name).read_text() for name in (GOOD, BAD, DECISIONS, SEEN)},
    )


def test_the_summary_counts_analyses_reports_additions_lines_members_domains_and_alerts(docs, tmp_path):
    summary = publish(docs, tmp_path / "artifacts", report=False)
    json_lines = len(lines(tmp_path / "artifacts" / DECISIONS))
    del summary["version"]
    assert summary == {
        "analyses": 3,
        "reports": 8,
        "report": None,
        "added": {"good": 1, "bad": 1, "recognised": 2, "confirmed": 1, "prefixes": 3},
        "lines": {GOOD: 3, BAD: 1, DECISIONS: json_lines, SEEN: 5},
        "members": 3,
        "domains": 2,
        "alerts": 2,  # zenodo's pages lack the DOI; member 7's prefix leads to no page
    }


def test_a_report_is_stored_per_prefix_domain_and_member(docs, tmp_path):
    publish(docs, tmp_path / "artifacts", report=False)
    assert sorted(f"{r['report/kind']}:{r['report/key']}" for r in docs.scan("report")) == [
        "domain:journals.plos.org",
        "domain:zenodo.org",
        "member:crossref/340",
        "member:crossref/7",
        "member:datacite/cern.zenodo",
        "prefix:10.1371",
        "prefix:10.5281",
        "prefix:10.5555",
    ]


def test_a_prefix_report_counts_its_dois_and_their_failures(docs, tmp_path):
    publish(docs, tmp_path / "artifacts", report=False)
    assert docs.get("report", "prefix:10.5555") == {
        "report/kind": "prefix",
        "report/key": "10.5555",
        "report/dois": 1,
        "report/ra": "crossref",
        "report/good-domains": [],
        "report/bad-domains": [],
        "report/correctness": {"ok": 0, "incorrect": 0, "conflict": 0, "missing": 0},
        "report/errors": {"timeout": 1},
        "report/member": "crossref/7",  # the member with most DOIs under the prefix (landing.core.registries.names)
        "report/member-name": None,
    }


def test_reports_of_an_earlier_rebuild_that_no_analysis_supports_are_deleted(docs, tmp_path):
    docs.put("report", "prefix:10.9999", {"report/kind": "prefix", "report/key": "10.9999"})
    publish(docs, tmp_path / "artifacts", report=False)
    assert docs.get("report", "prefix:10.9999") is None


def test_a_doi_visited_twice_counts_once_by_its_visit_that_reached_a_page(tmp_path):
    reached = visit(
        "10.1371/journal.pone.0160617",
        "crossref",
        "340",
        "https://journals.plos.org/plosone/article?id=1",
        found={"analysis/doi-in-text": "non-url", "analysis/meta-tag-correctness": "missing"},
        when=DAY1,
    )
    failed_later = visit("10.1371/journal.pone.0160617", "crossref", "340", error="dns", when=DAY2)
    with store(tmp_path / "docs.db", reached, failed_later) as docs:
        summary = publish(docs, tmp_path / "artifacts", report=False)
        report = docs.get("report", "prefix:10.1371")
    assert (
        summary["analyses"],
        report["report/dois"],
        report["report/errors"],
        lines(tmp_path / "artifacts" / GOOD),
    ) == (1, 1, {}, ["10.1371,journals.plos.org,crossref"])


def test_entries_already_exported_stay_when_the_store_no_longer_implies_them(tmp_path):
    artifacts = tmp_path / "artifacts"
    with store(tmp_path / "first.db", ZENODO) as first:
        publish(first, artifacts, report=False)
    with store(tmp_path / "second.db", PLOS) as second:
        summary = publish(second, artifacts, report=False)
    assert (lines(artifacts / BAD), lines(artifacts / GOOD), summary["added"]["bad"]) == (
        ["10.5281,zenodo.org,datacite"],
        ["10.1371,journals.plos.org,crossref", "10.5281,,datacite"],
        0,
    )


def test_rebuilding_an_unchanged_store_adds_nothing_and_writes_a_second_version(docs, tmp_path):
    publish(docs, tmp_path / "artifacts", report=False)
    summary = publish(docs, tmp_path / "artifacts", report=False)
    assert (summary["added"], len(list((tmp_path / "artifacts" / "versions").iterdir()))) == (
        {"good": 0, "bad": 0, "recognised": 0, "confirmed": 0, "prefixes": 0},
        2,
    )


def test_a_store_without_analyses_exports_empty_artifacts(tmp_path):
    with store(tmp_path / "docs.db") as docs:
        summary = publish(docs, tmp_path / "artifacts", report=False)
    assert (
        summary["analyses"],
        summary["reports"],
        summary["lines"][GOOD],
        summary["lines"][BAD],
        json.loads((tmp_path / "artifacts" / DECISIONS).read_text()),
    ) == (0, 0, 0, 0, {"domains": [], "prefixes": [], "domains-prefixes": {}})


def test_continuous_modes_prefixes_once_sampled_are_listed_without_their_samples(tmp_path):
    with store(tmp_path / "docs.db", PLOS) as docs:
        for ra, prefix, sampled in (("crossref", "10.7", DAY1), ("datacite", "10.8", None)):
            listed = {"prefix/ra": ra, "prefix/prefix": prefix, "prefix/sampled": sampled}
            docs.put("prefix", f"{ra} {prefix}", listed)
        publish(docs, tmp_path / "artifacts", report=False)
    assert lines(tmp_path / "artifacts" / GOOD) == ["10.1371,journals.plos.org,crossref", "10.7,,crossref"]


def test_progress_is_told_once_per_50000_analyses(tmp_path):
    told = []
    docs = store(
        tmp_path / "docs.db",
        *(
            {"pid/doi": f"10.1/{n:06d}", "pid/ra": "crossref", "snapshot/driver": "http", "snapshot/timestamp": DAY1}
            for n in range(50001)
        ),
    )
    with docs:
        publish(docs, tmp_path / "artifacts", progress=told.append, report=False)
    assert told == ["aggregated 50,000 analyses"]


def test_an_excluded_domain_is_exported_only_as_followed(tmp_path):
    docs = store(tmp_path / "docs.db", PLOS, ZENODO)
    try:
        publish(docs, tmp_path / "artifacts", exclusions=frozenset({"zenodo.org"}), report=False)
    finally:
        docs.close()
    decisions = json.loads((tmp_path / "artifacts" / DECISIONS).read_text())
    assert decisions["domains"] == ["journals.plos.org"]
    assert lines(tmp_path / "artifacts" / BAD) == ["10.5281,zenodo.org,datacite"]


def test_a_store_without_reports_draws_nothing(tmp_path):
    from landing.publish import draw_from_store

    with store(tmp_path / "docs.db", PLOS) as docs:
        assert draw_from_store(docs, tmp_path / "artifacts", tmp_path / "report.html") is None
    assert not (tmp_path / "report.html").exists()


def test_the_report_is_drawn_beside_the_version_and_linked_at_the_top_from_an_exporting_process(tmp_path):
    import sys

    from tests import forked

    store(tmp_path / "docs.db", PLOS, ZENODO).close()
    script = (
        "from landing.publish import publish; from landing.stores.sqlite import SqliteDocStore; "
        f"docs = SqliteDocStore({str(tmp_path / 'docs.db')!r}); "
        f"summary = publish(docs, {str(tmp_path / 'artifacts')!r}); docs.close(); "
        "print(summary['report'])"
    )
    root = Path(__file__).resolve().parents[2]
    done = forked.run([sys.executable, "-c", script], root, None, timeout=120)
    version = next((tmp_path / "artifacts" / "versions").iterdir())
    assert (done.stdout, (version / "report" / "index.html").is_file()) == (
        f"{tmp_path / 'artifacts' / 'report' / 'index.html'}\n",
        True,
    )
