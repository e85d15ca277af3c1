"""landing.core.artifacts: good/bad/recognised/confirmed rules, merge, render/parse, diff, current and excluded."""

import json

import pytest

from landing.core.aggregation import Aggregate
from landing.core.artifact_format import BAD_CSV, DECISIONS_JSON, GOOD_CSV, parse, render
from landing.core.artifact_sets import Artifacts, diff, merge
from landing.core.decisions import Decisions
from tests.core.aggregating import aggregate, doc


def test_doi_only_in_a_meta_tag_makes_the_pair_good_and_recognised():
    a = aggregate([doc(meta="non-url", correctness="ok")])
    assert a.good == {("10.1371", "journals.plos.org", "crossref")}
    assert a.bad == frozenset()
    assert a.recognised == {("journals.plos.org", "10.1371")}


def test_doi_only_in_a_link_makes_the_pair_good():
    a = aggregate([doc(links="https-doi")])
    assert a.good == {("10.1371", "journals.plos.org", "crossref")}
    assert a.bad == frozenset()


def test_doi_only_in_the_text_makes_the_pair_good():
    a = aggregate([doc(text="doi-scheme")])
    assert a.good == {("10.1371", "journals.plos.org", "crossref")}


def test_doi_nowhere_on_the_page_makes_the_pair_bad_but_still_recognised():
    a = aggregate([doc()])
    assert a.good == frozenset()
    assert a.bad == {("10.1371", "journals.plos.org", "crossref")}
    assert a.recognised == {("journals.plos.org", "10.1371")}
    assert a.confirmed == frozenset()


@pytest.mark.parametrize("error", ["http-4xx", "challenge", "cookie-wall", "robots", "dns", "timeout"])
def test_a_visit_that_ended_on_a_domain_in_failure_still_makes_the_pair_bad_and_recognised(error):
    a = aggregate([doc(doi="10.5555/x", domain="blocked.example", error=error)])
    assert (a.good, a.confirmed) == (frozenset(), frozenset())
    assert a.bad == {("10.5555", "blocked.example", "crossref")}
    assert a.recognised == {("blocked.example", "10.5555")}
    assert a.ends == {("blocked.example", "10.5555", error, 1)}


def test_a_visit_that_never_left_the_resolver_or_was_refused_its_address_adds_no_domain():
    on_resolver = {**doc(doi="10.5555/x", domain="doi.org", error="http-4xx"), "snapshot/resource-url": None}
    refused = doc(doi="10.5555/y", domain="169.254.169.254", error="refused-address")
    a = aggregate([on_resolver, refused])
    assert a.bad == a.recognised == a.ends == frozenset()
    assert a.prefixes == {("10.5555", "crossref")}


def test_visit_ends_count_the_dois_of_a_prefix_per_domain_and_class():
    a = aggregate(
        [
            doc(meta="non-url", correctness="ok"),
            doc(doi="10.1371/b"),
            doc(doi="10.1371/c", error="challenge"),
            doc(doi="10.1371/d", domain="mirror.example"),
        ]
    )
    assert a.ends == {
        ("journals.plos.org", "10.1371", "page", 2),
        ("journals.plos.org", "10.1371", "challenge", 1),
        ("mirror.example", "10.1371", "page", 1),
    }
    cell = json.loads(render(a)[DECISIONS_JSON])["domains-prefixes"]["journals.plos.org"]["10.1371"]
    assert cell == {"domain-recognised": True, "domain-confirmed": True, "visits": {"challenge": 1, "page": 2}}


def test_merge_takes_a_pairs_visit_ends_from_the_newer_export_and_keeps_pairs_it_lacks():
    old = aggregate([doc(), doc(doi="10.5555/x", domain="old.example")])
    new = aggregate([doc(), doc(doi="10.1371/b", error="challenge")])
    assert merge(old, new).ends == {
        ("journals.plos.org", "10.1371", "page", 1),
        ("journals.plos.org", "10.1371", "challenge", 1),
        ("old.example", "10.5555", "page", 1),
    }


def test_visit_ends_that_are_not_counts_are_refused_with_a_message():
    cell = {"domain-recognised": True, "visits": {"page": "2"}}
    text = json.dumps({"domains-prefixes": {"x.example": {"10.1": cell}}})
    with pytest.raises(ValueError, match=r'\["visits"\] must map classes to counts'):
        parse({DECISIONS_JSON: text})


def test_doc_without_a_final_domain_adds_no_domain():
    a = aggregate([doc(domain=None, correctness=None)])
    assert a.recognised == frozenset()
    assert a.prefixes == {("10.1371", "crossref")}


def test_meta_tag_ok_confirms_the_pair():
    a = aggregate([doc(meta="https-doi", correctness="ok")])
    assert a.confirmed == {("journals.plos.org", "10.1371")}


def test_incorrect_and_conflicting_meta_tags_do_not_confirm():
    a = aggregate(
        [doc(meta="non-url", correctness="incorrect"), doc(doi="10.1371/b", meta="non-url", correctness="conflict")]
    )
    assert a.confirmed == frozenset()
    assert a.recognised == {("journals.plos.org", "10.1371")}


def test_datacite_ra_is_kept_on_prefixes_and_lines():
    a = aggregate([doc(doi="10.5281/zenodo.1", domain="zenodo.org", links="https-doi", ra="datacite")])
    assert a.prefixes == {("10.5281", "datacite")}
    assert a.good == {("10.5281", "zenodo.org", "datacite")}


def test_one_good_and_one_bad_doi_of_a_prefix_make_the_pair_both_good_and_bad():
    a = aggregate([doc(meta="non-url"), doc(doi="10.1371/b")])
    assert a.good == {("10.1371", "journals.plos.org", "crossref")}
    assert a.bad == {("10.1371", "journals.plos.org", "crossref")}


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


def _analysis(doi, driver, day, error=None):
    return {
        "pid/doi": doi,
        "snapshot/driver": driver,
        "snapshot/timestamp": f"2026-11-{day}T00:00:00Z",
        "snapshot/error": error,
    }


def test_current_keeps_one_analysis_per_doi_the_latest_that_reached_a_page():
    from landing.core.current_analysis import current

    stream = [
        _analysis("10.1/a", "browser", 21),
        _analysis("10.1/a", "http", 22, error="js-required"),
        _analysis("10.1/b", "http", 20),
        _analysis("10.1/b", "http", 22),
        _analysis("10.1/c", "http", 20, error="timeout"),
        _analysis("10.1/c", "http", 21, error="dns"),
    ]
    assert [
        (d["pid/doi"], d["snapshot/driver"], d["snapshot/timestamp"][:10], d["snapshot/error"]) for d in current(stream)
    ] == [
        ("10.1/a", "browser", "2026-11-21", None),
        ("10.1/b", "http", "2026-11-22", None),
        ("10.1/c", "http", "2026-11-21", "dns"),
    ]


def test_an_excluded_domain_is_kept_as_followed_but_never_good_recognised_or_confirmed():
    from landing.core.artifact_sets import excluding

    a = excluding(
        aggregate([doc(domain="www.youtube.com", meta="non-url", correctness="ok"), doc(doi="10.1371/b")]),
        frozenset({"youtube.com"}),
    )
    assert a.good == frozenset()
    assert a.bad == {("10.1371", "www.youtube.com", "crossref"), ("10.1371", "journals.plos.org", "crossref")}
    assert (a.recognised, a.confirmed) == ({("journals.plos.org", "10.1371")}, frozenset())
    assert {end[0] for end in a.ends} == {"journals.plos.org"}


def test_a_prefix_keeps_its_first_non_empty_ra_from_analyses_listings_and_merged_versions_alike():
    accumulator = Aggregate()
    accumulator.add(doc(ra=""))
    accumulator.listed("10.1371", "crossref")
    accumulator.add(doc(ra="datacite"))
    accumulator.listed("10.1371", "datacite")
    merged = merge(Artifacts(prefixes=frozenset({("10.1", "")})), Artifacts(prefixes=frozenset({("10.1", "datacite")})))
    assert (
        accumulator.ras,
        merged.prefixes,
        merge(merged, Artifacts(prefixes=frozenset({("10.1", "x")}))).prefixes,
    ) == (
        {"10.1371": "crossref"},
        {("10.1", "datacite")},
        {("10.1", "datacite")},
    )


def test_excluded_artifacts_vouch_for_the_same_pairs_as_the_matcher_trusts_in_their_export():
    from landing.core.artifact_sets import excluding
    from landing.core.decisions import excluding as trusted

    a = aggregate([doc(domain="m.youtube.com", meta="non-url", correctness="ok"), doc(doi="10.1371/b")])
    exported = Decisions.read(render(excluding(a, frozenset({"youtube.com"})))[DECISIONS_JSON])
    read = trusted(Decisions.read(render(a)[DECISIONS_JSON]), frozenset({"youtube.com"}))
    assert (exported.recognised, exported.confirmed, dict(exported.by_domain), exported.ends()) == (
        read.recognised,
        read.confirmed,
        dict(read.by_domain),
        read.ends(),
    )
