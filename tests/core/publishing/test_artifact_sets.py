"""landing.core.publishing.artifact_sets: merge never removes, what a version added, excluded domains kept only as followed."""

from landing.core.matching.decisions import Decisions
from landing.core.matching.decisions import excluding as trusted
from landing.core.publishing.artifact_format import DECISIONS_JSON, render
from landing.core.publishing.artifact_sets import Artifacts, diff, excluding, merge
from tests.core.publishing.aggregating import aggregate, doc


def test_merge_takes_a_pairs_visit_ends_from_the_newer_export_and_keeps_pairs_it_lacks():
    old = aggregate([doc(), doc(doi="10.5555/x", domain="old.example")])
    new = aggregate([doc(), doc(doi="10.1371/b", error="challenge")])
    assert merge(old, new).ends == {
        ("journals.plos.org", "10.1371", "page", 1),
        ("journals.plos.org", "10.1371", "challenge", 1),
        ("old.example", "10.5555", "page", 1),
    }


def test_merge_never_removes_an_entry():
    old = aggregate([doc(meta="non-url", correctness="ok"), doc(doi="10.2/x", domain="bad.example")])
    new = aggregate([doc(doi="10.3/y", domain="new.example", links="https-doi")])
    merged = merge(old, new)
    assert merged.good == old.good | new.good
    assert merged.bad == old.bad
    assert merged.recognised == old.recognised | new.recognised
    assert merged.confirmed == {("journals.plos.org", "10.1371")}
    assert merged.prefixes == {("10.1371", "crossref"), ("10.2", "crossref"), ("10.3", "crossref")}


def test_merge_fills_an_unknown_ra_from_either_side_and_keeps_a_known_one():
    unknown = Artifacts(prefixes=frozenset({("10.1", ""), ("10.2", "crossref")}))
    known = Artifacts(prefixes=frozenset({("10.1", "datacite"), ("10.2", "datacite")}))
    assert merge(unknown, known).prefixes == {("10.1", "datacite"), ("10.2", "crossref")}
    assert merge(known, unknown).prefixes == {("10.1", "datacite"), ("10.2", "datacite")}


def test_diff_counts_what_the_new_version_adds():
    old = aggregate([doc(meta="non-url")])
    new = merge(
        old,
        aggregate(
            [
                doc(doi="10.2/x", domain="b.example", meta="non-url", correctness="ok"),
                doc(doi="10.3/y", domain="c.example"),
            ]
        ),
    )
    assert diff(old, new) == {"good": 1, "bad": 1, "recognised": 2, "confirmed": 1, "prefixes": 2}
    assert diff(new, new) == {"good": 0, "bad": 0, "recognised": 0, "confirmed": 0, "prefixes": 0}


def test_an_excluded_domain_is_kept_as_followed_but_never_good_recognised_or_confirmed():
    a = excluding(
        aggregate([doc(domain="www.youtube.com", meta="non-url", correctness="ok"), doc(doi="10.1371/b")]),
        frozenset({"youtube.com"}),
    )
    assert a.good == frozenset()
    assert a.bad == {("10.1371", "www.youtube.com", "crossref"), ("10.1371", "journals.plos.org", "crossref")}
    assert (a.recognised, a.confirmed) == ({("journals.plos.org", "10.1371")}, frozenset())
    assert {end[0] for end in a.ends} == {"journals.plos.org"}


def test_excluded_artifacts_vouch_for_the_same_pairs_as_the_matcher_trusts_in_their_export():
    a = aggregate([doc(domain="m.youtube.com", meta="non-url", correctness="ok"), doc(doi="10.1371/b")])
    exported = Decisions.read(render(excluding(a, frozenset({"youtube.com"})))[DECISIONS_JSON])
    read = trusted(Decisions.read(render(a)[DECISIONS_JSON]), frozenset({"youtube.com"}))
    assert (exported.recognised, exported.confirmed, dict(exported.by_domain), exported.ends()) == (
        read.recognised,
        read.confirmed,
        dict(read.by_domain),
        read.ends(),
    )
