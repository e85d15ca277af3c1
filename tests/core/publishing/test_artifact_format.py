"""landing.core.publishing.artifact_format: the files' formats (three fields a list line, first and last seen in a file of their
own, the decision structure), render and parse, older versions read and merged, hosts that are no hostname kept out,
corrupt files refused naming the file."""

import csv
import io
import json

import pytest

from landing.core.matching.decisions import Decisions
from landing.core.publishing.artifact_format import BAD_CSV, DECISIONS_JSON, GOOD_CSV, ArtifactError, parse, render
from landing.core.publishing.artifact_sets import Artifacts, merge
from landing.core.publishing.sightings import SEEN_CSV
from tests.core.publishing.aggregating import aggregate, doc, reports

DAY1, DAY2, DAY3 = "2026-01-02T12:00:00Z", "2026-02-01T12:00:00Z", "2026-03-04T12:00:00Z"


def _on(when, **kwargs):
    return {**doc(**kwargs), "snapshot/timestamp": when}


def _rows(text):
    return list(csv.reader(io.StringIO(text)))


DATED = [
    _on(DAY1, meta="non-url", correctness="ok"),
    _on(DAY3, doi="10.1371/b", domain="other.example"),
    _on(DAY2, doi="10.5555/x", domain=None, error="timeout"),
]


def test_every_line_of_both_lists_is_prefix_domain_ra_however_the_pairs_were_seen():
    files = render(aggregate(DATED))
    assert files[GOOD_CSV] == "10.1371,journals.plos.org,crossref\n10.5555,,crossref\n"
    assert files[BAD_CSV] == "10.1371,other.example,crossref\n"
    assert {len(row) for name in (GOOD_CSV, BAD_CSV) for row in _rows(files[name])} == {3}


def test_first_and_last_seen_are_written_to_their_own_file_beside_the_lists_and_read_back():
    a = aggregate(DATED)
    files = render(a)
    assert files[SEEN_CSV] == (
        f"10.1371,,{DAY1},{DAY3}\n"
        f"10.1371,journals.plos.org,{DAY1},{DAY1}\n"
        f"10.1371,other.example,{DAY3},{DAY3}\n"
        f"10.5555,,{DAY2},{DAY2}\n"
    )
    cell = json.loads(files[DECISIONS_JSON])["domains-prefixes"]["other.example"]["10.1371"]
    assert (cell["first-seen"], cell["last-seen"]) == (DAY3, DAY3)
    assert parse(files) == a


def test_an_older_versions_five_field_lines_are_read_and_merged_into_three_field_lines_and_the_seen_file():
    older = {
        GOOD_CSV: f"10.1371,journals.plos.org,crossref,{DAY1},{DAY1}\n10.2,,crossref,{DAY1},{DAY2}\n10.3,,datacite\n",
        BAD_CSV: f"10.2,gone.example,crossref,{DAY1},{DAY2}\n",
    }
    merged = render(merge(parse(older), aggregate([_on(DAY3, meta="non-url")])))
    assert merged[GOOD_CSV] == "10.1371,journals.plos.org,crossref\n10.2,,crossref\n10.3,,datacite\n"
    assert merged[BAD_CSV] == "10.2,gone.example,crossref\n"
    assert merged[SEEN_CSV] == (
        f"10.1371,,{DAY3},{DAY3}\n"
        f"10.1371,journals.plos.org,{DAY1},{DAY3}\n"
        f"10.2,,{DAY1},{DAY2}\n"
        f"10.2,gone.example,{DAY1},{DAY2}\n"
    )


@pytest.mark.parametrize(
    "name, text, said",
    [
        (GOOD_CSV, "10.1,a.example,crossref\n10.2,b.example\n", "line 2: 2 fields, expected prefix,domain,ra"),
        (BAD_CSV, "10.1,a.example,crossref,x,y,z\n", "line 1: 6 fields, expected prefix,domain,ra"),
        (SEEN_CSV, f"10.1,a.example,{DAY1}\n", "line 1: 3 fields, expected prefix,domain,first-seen,last-seen"),
        (GOOD_CSV, "10.1," + "a" * 131_073 + ",crossref\n", "line 1: field larger than field limit (131072)"),
        (BAD_CSV, '10.1,"a.example,crossref\n', "line 1: unexpected end of data"),
    ],
    ids=["two-fields", "six-fields", "seen-three-fields", "huge-field", "open-quote"],
)
def test_a_corrupt_list_is_refused_naming_the_file_and_the_line(name, text, said):
    with pytest.raises(ArtifactError) as refused:
        parse({name: text})
    assert (refused.value.name, refused.value.what, str(refused.value)) == (name, said, f"{name}: {said}")


@pytest.mark.parametrize(
    "text, said",
    [
        ("[" * 100_000 + "]" * 100_000, "nested too deeply to read"),
        ("{", "not JSON (Expecting property name enclosed in double quotes: line 1 column 2 (char 1))"),
        ("[]", "expected an object with a"),
        ('{"domains-prefixes": {"a.example": {"10.1": {"visits": {"page": -1}}}}}', "must map classes to counts"),
    ],
    ids=["nested-100000-deep", "not-json", "not-an-object", "bad-visits"],
)
def test_a_corrupt_decision_structure_is_refused_naming_the_file(text, said):
    with pytest.raises(ArtifactError) as refused:
        parse({DECISIONS_JSON: text})
    assert refused.value.name == DECISIONS_JSON
    assert said in refused.value.what and "\n" not in str(refused.value)


HOSTILE = ["=1+2.evil.example", "+1+1.evil.example", "a\x1bcred.evil.example", "a\u202ecred.evil.example", "$a__b$.x"]


def test_a_host_that_is_no_hostname_is_never_a_domain_in_the_artifacts_or_the_reports():
    docs = [
        _on(DAY1, doi=f"10.99002/{n}", domain=host, meta="non-url", correctness="ok") for n, host in enumerate(HOSTILE)
    ]
    a = aggregate(docs)
    assert (a.good, a.bad, a.recognised, a.confirmed, a.ends) == (frozenset(),) * 5
    assert a.prefixes == {("10.99002", "crossref")}
    assert {span[1] for span in a.seen} == {""}
    assert [r["report/key"] for r in reports(docs) if r["report/kind"] == "domain"] == []
    assert render(a)[GOOD_CSV] == "10.99002,,crossref\n"


def test_an_older_versions_hosts_that_are_no_hostname_are_dropped_when_it_is_read():
    rows = "".join(f'10.99002,"{host}",crossref\n' for host in sorted(HOSTILE))
    cells = {host: {"10.99002": {"domain-recognised": True, "visits": {"page": 1}}} for host in HOSTILE}
    cells["ok.example"] = {"10.99002": {"domain-recognised": True, "visits": {"page": 1}}}
    seen = "".join(f'10.99002,"{host}",{DAY1},{DAY1}\n' for host in sorted(HOSTILE))
    a = parse({GOOD_CSV: rows, BAD_CSV: rows, SEEN_CSV: seen, DECISIONS_JSON: json.dumps({"domains-prefixes": cells})})
    assert (a.good, a.bad, a.seen, a.prefixes) == (frozenset(), frozenset(), frozenset(), {("10.99002", "crossref")})
    assert a.recognised == {("ok.example", "10.99002")}
    assert a.ends == {("ok.example", "10.99002", "page", 1)}


def test_a_header_line_in_the_seen_file_is_skipped_like_the_lists_one():
    text = f"prefix,domain,first-seen,last-seen\n10.1,a.example,{DAY1},{DAY2}\n"
    assert parse({SEEN_CSV: text}).seen == {("10.1", "a.example", DAY1, DAY2)}


def test_a_pair_is_seen_from_its_first_visit_to_its_last_and_a_prefix_without_good_domain_too():
    a = aggregate(
        [
            _on("2026-01-02T12:00:00Z"),
            _on("2026-03-04T12:00:00Z", doi="10.1371/b"),
            _on("2026-02-01T12:00:00Z", doi="10.5555/x", domain=None),
        ]
    )
    assert a.seen == {
        ("10.1371", "journals.plos.org", "2026-01-02T12:00:00Z", "2026-03-04T12:00:00Z"),
        ("10.1371", "", "2026-01-02T12:00:00Z", "2026-03-04T12:00:00Z"),
        ("10.5555", "", "2026-02-01T12:00:00Z", "2026-02-01T12:00:00Z"),
    }
    files = render(a)
    assert files[SEEN_CSV] == (
        "10.1371,,2026-01-02T12:00:00Z,2026-03-04T12:00:00Z\n"
        "10.1371,journals.plos.org,2026-01-02T12:00:00Z,2026-03-04T12:00:00Z\n"
        "10.5555,,2026-02-01T12:00:00Z,2026-02-01T12:00:00Z\n"
    )
    cell = json.loads(files[DECISIONS_JSON])["domains-prefixes"]["journals.plos.org"]["10.1371"]
    assert (cell["first-seen"], cell["last-seen"]) == ("2026-01-02T12:00:00Z", "2026-03-04T12:00:00Z")
    assert parse(files) == a


def test_a_site_that_moved_keeps_its_old_pair_with_the_last_day_it_was_seen():
    old = aggregate([_on("2026-01-02T12:00:00Z", domain="old.example")])
    new = aggregate([_on("2026-06-01T12:00:00Z", domain="new.example")])
    merged = merge(old, new)
    assert {span for span in merged.seen if span[1]} == {
        ("10.1371", "old.example", "2026-01-02T12:00:00Z", "2026-01-02T12:00:00Z"),
        ("10.1371", "new.example", "2026-06-01T12:00:00Z", "2026-06-01T12:00:00Z"),
    }
    assert merge(merged, aggregate([_on("2026-07-01T12:00:00Z", domain="new.example")])).seen >= {
        ("10.1371", "new.example", "2026-06-01T12:00:00Z", "2026-07-01T12:00:00Z")
    }


def test_visit_ends_that_are_not_counts_are_refused_with_a_message():
    cell = {"domain-recognised": True, "visits": {"page": "2"}}
    text = json.dumps({"domains-prefixes": {"x.example": {"10.1": cell}}})
    with pytest.raises(ValueError, match=r'\["visits"\] must map classes to counts'):
        parse({DECISIONS_JSON: text})


def test_every_known_prefix_is_written_with_an_empty_domain_when_it_has_no_good_domain():
    a = aggregate(
        [
            doc(meta="non-url"),
            doc(doi="10.5555/x", domain="blocked.example", error="timeout"),
            doc(doi="10.9999/y", domain="nodoi.example"),
        ]
    )
    assert render(a)[GOOD_CSV] == ("10.1371,journals.plos.org,crossref\n10.5555,,crossref\n10.9999,,crossref\n")
    assert render(a)[BAD_CSV] == "10.5555,blocked.example,crossref\n10.9999,nodoi.example,crossref\n"


def test_csv_fields_needing_quotes_are_quoted_and_parse_back():
    a = Artifacts(good=frozenset({("10.1,x", "b.example", "crossref")}), prefixes=frozenset({("10.1,x", "crossref")}))
    assert render(a)[GOOD_CSV] == '"10.1,x",b.example,crossref\n'
    assert parse(render(a)) == a


def test_decision_structure_lists_domains_prefixes_and_flags():
    a = aggregate([doc(meta="non-url", correctness="ok"), doc(doi="10.5555/x", domain="other.example")])
    assert json.loads(render(a)[DECISIONS_JSON]) == {
        "domains": ["journals.plos.org", "other.example"],
        "prefixes": ["10.1371", "10.5555"],
        "domains-prefixes": {
            "journals.plos.org": {
                "10.1371": {"domain-recognised": True, "domain-confirmed": True, "visits": {"page": 1}}
            },
            "other.example": {"10.5555": {"domain-recognised": True, "domain-confirmed": False, "visits": {"page": 1}}},
        },
    }


def test_render_is_deterministic_whatever_the_input_order():
    docs = [doc(meta="non-url"), doc(doi="10.5555/x", domain="b.example"), doc(doi="10.2/y", domain="a.example")]
    assert render(aggregate(docs)) == render(aggregate(reversed(docs)))


def test_render_then_parse_round_trips_exactly():
    a = aggregate(
        [
            doc(meta="non-url", correctness="ok"),
            doc(doi="10.1371/b", domain="other.example"),
            doc(doi="10.5281/z", domain="zenodo.org", links="https-doi", ra="datacite"),
            doc(doi="10.5555/x", domain="blocked.example", error="js-required"),
        ]
    )
    assert parse(render(a)) == a
    assert render(parse(render(a))) == render(a)


def test_parse_of_nothing_is_empty():
    assert parse({}) == Artifacts()


def test_parse_of_the_decision_structure_alone_gives_pairs_and_prefixes_without_ra():
    a = aggregate([doc(meta="non-url", correctness="ok"), doc(doi="10.5555/x", domain="other.example")])
    only_json = parse({DECISIONS_JSON: render(a)[DECISIONS_JSON]})
    assert only_json.recognised == a.recognised
    assert only_json.confirmed == {("journals.plos.org", "10.1371")}
    assert only_json.prefixes == {("10.1371", ""), ("10.5555", "")}
    assert only_json.good == only_json.bad == frozenset()


def test_parse_reads_the_decision_structure_as_the_matcher_does():
    text = '{"domains-prefixes": {"A.example": {"10.1": {"domain-recognised": 1, "domain-confirmed": false}}}}'
    assert parse({DECISIONS_JSON: text}).recognised == Decisions.read(text).recognised == {("a.example", "10.1")}
    with pytest.raises(ValueError, match="must be true/false"):
        parse({DECISIONS_JSON: '{"domains-prefixes": {"a.example": {"10.1": {"domain-recognised": "yes"}}}}'})


def test_parse_skips_a_header_line():
    text = "prefix,domain,ra\n10.1,a.example,crossref\n"
    assert parse({GOOD_CSV: text}).good == {("10.1", "a.example", "crossref")}
