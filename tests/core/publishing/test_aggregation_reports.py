"""landing.core.publishing.aggregation: the report documents per prefix, domain and member, from the same accumulator as the
artifacts."""

from collections.abc import Iterator

from landing.core.publishing.aggregation import Aggregate
from landing.core.publishing.report_keys import report_id
from tests.core.publishing.aggregating import aggregate, doc, reports


def test_reports_count_dois_correctness_errors_and_domains_per_prefix():
    docs = [
        doc(meta="non-url", correctness="ok"),
        doc(doi="10.1371/b", domain="other.example", correctness="missing"),
        doc(doi="10.1371/c", domain="other.example", error="http-4xx"),
        doc(doi="10.1371/d", domain=None, error="timeout"),
    ]
    by_id = {report_id(r): r for r in reports(docs)}
    assert by_id["prefix:10.1371"] == {
        "report/kind": "prefix",
        "report/key": "10.1371",
        "report/ra": "crossref",
        "report/dois": 4,
        "report/good-domains": ["journals.plos.org"],
        "report/bad-domains": ["other.example"],
        "report/correctness": {"ok": 1, "incorrect": 0, "conflict": 0, "missing": 1},
        "report/errors": {"http-4xx": 1, "timeout": 1},
        "report/member": "crossref/340",
        "report/member-name": None,
    }


def test_reports_per_domain_count_every_doc_ending_there_errors_included():
    docs = [doc(links="https-doi"), doc(doi="10.2/x"), doc(doi="10.3/y", error="robots")]
    by_id = {report_id(r): r for r in reports(docs)}
    assert by_id["domain:journals.plos.org"] == {
        "report/kind": "domain",
        "report/key": "journals.plos.org",
        "report/dois": 3,
        "report/good-prefixes": ["10.1371"],
        "report/bad-prefixes": ["10.2", "10.3"],
        "report/correctness": {"ok": 0, "incorrect": 0, "conflict": 0, "missing": 2},
        "report/errors": {"robots": 1},
    }


def test_reports_per_member_carry_ra_member_id_and_domains():
    docs = [doc(doi="10.5281/z", domain="zenodo.org", text="non-url", ra="datacite", member="cern.zenodo")]
    by_id = {report_id(r): r for r in reports(docs)}
    assert by_id["member:datacite/cern.zenodo"] == {
        "report/kind": "member",
        "report/key": "datacite/cern.zenodo",
        "report/ra": "datacite",
        "report/member-id": "cern.zenodo",
        "report/dois": 1,
        "report/good-domains": ["zenodo.org"],
        "report/bad-domains": [],
        "report/correctness": {"ok": 0, "incorrect": 0, "conflict": 0, "missing": 1},
        "report/errors": {},
        "report/name": None,
        "report/provider-id": None,
        "report/provider-name": None,
    }


def test_several_snapshots_of_one_doi_each_count():
    by_id = {report_id(r): r for r in reports([doc(), doc()])}
    assert by_id["prefix:10.1371"]["report/dois"] == 2


def test_reports_and_artifacts_come_from_one_accumulator():
    acc = Aggregate()
    for d in [doc(meta="non-url", correctness="ok"), doc(doi="10.2/x", error="timeout")]:
        acc.add(d)
    assert acc.artifacts() == aggregate([doc(meta="non-url", correctness="ok"), doc(doi="10.2/x", error="timeout")])
    assert [report_id(r) for r in acc.reports()] == [
        "prefix:10.1371",
        "prefix:10.2",
        "domain:journals.plos.org",
        "member:crossref/340",
    ]


def test_an_aggregate_makes_its_reports_as_they_are_read():
    acc = Aggregate()
    acc.add(doc(meta="non-url", correctness="ok"))
    made = acc.reports()
    assert isinstance(made, Iterator)
    assert report_id(next(made)) == "prefix:10.1371"


def test_every_report_document_has_exactly_the_report_keys_the_stores_map():
    from landing.core.publishing.report_keys import REPORT_KEYS

    made = reports([doc(meta="non-url", correctness="ok"), doc(doi="10.5555/x", domain=None, error="dns")])
    assert {key for report in made for key in report} == set(REPORT_KEYS)
