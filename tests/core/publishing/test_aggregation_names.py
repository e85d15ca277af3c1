"""landing.core.publishing.aggregation: the owners' names on the report documents (member and prefix kinds), from named analyses
and from analyses stored before names were kept."""

from landing.core.publishing.report_keys import report_id
from landing.core.registries.names import Names, keyed
from tests.core.publishing.aggregating import doc, reports

EARLY, LATE = "2026-11-01T00:00:00Z", "2026-11-09T00:00:00Z"


def named(names: Names, stamp: str = EARLY, **fields) -> dict:
    return {**doc(**fields), "pid/timestamp": stamp, **keyed("pid", names)}


def by_id(docs) -> dict:
    return {report_id(r): r for r in reports(docs)}


def test_a_member_report_carries_its_name_and_provider_from_its_analyses():
    found = by_id([named(Names("Zenodo", "cern", "CERN"), doi="10.5281/z", ra="datacite", member="cern.zenodo")])
    member = found["member:datacite/cern.zenodo"]
    assert (member["report/name"], member["report/provider-id"], member["report/provider-name"]) == (
        "Zenodo",
        "cern",
        "CERN",
    )


def test_a_member_renamed_between_samples_is_reported_under_its_newer_name():
    docs = [named(Names("New Press"), LATE, doi="10.1371/a"), named(Names("Old Press"), EARLY, doi="10.1371/b")]
    assert by_id(docs)["member:crossref/340"]["report/name"] == "New Press"


def test_a_prefix_report_names_the_member_with_most_dois_under_it_and_its_name():
    docs = [
        named(Names("Small Press"), doi="10.1371/a", member="7"),
        named(Names("Big Press"), doi="10.1371/b", member="8"),
        named(Names("Big Press"), doi="10.1371/c", member="8"),
    ]
    prefix = by_id(docs)["prefix:10.1371"]
    assert (prefix["report/member"], prefix["report/member-name"]) == ("crossref/8", "Big Press")


def test_a_prefix_of_two_members_with_as_many_dois_names_the_first_by_key():
    docs = [named(Names("Eight"), doi="10.1371/a", member="8"), named(Names("Seven"), doi="10.1371/b", member="7")]
    assert by_id(docs)["prefix:10.1371"]["report/member"] == "crossref/7"


def test_analyses_stored_before_names_aggregate_as_before_with_null_names():
    old = [doc(), doc(doi="10.1371/b", error="timeout")]
    found = by_id(old)
    assert (found["member:crossref/340"]["report/dois"], found["member:crossref/340"]["report/name"]) == (2, None)
    assert (found["prefix:10.1371"]["report/member"], found["prefix:10.1371"]["report/member-name"]) == (
        "crossref/340",
        None,
    )


def test_a_member_named_in_one_analysis_and_not_in_an_older_one_keeps_its_name():
    found = by_id([doc(doi="10.1371/a"), named(Names("Harbour Lane Press"), doi="10.1371/b")])
    assert found["member:crossref/340"]["report/name"] == "Harbour Lane Press"
