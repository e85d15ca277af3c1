"""landing.core.matching.decisions: loading the domain-decision-structure and the domain-level verifications."""

import json

import pytest

from landing.core.matching.decisions import Decisions, domain_verification, prefixes_on
from landing.core.publishing.artifact_format import DECISIONS_JSON, render
from landing.core.publishing.artifact_sets import Artifacts

# The original service's shape (CrossRef/event-data-percolator resources/artifacts/domain-decision-structure.json):
# its lists leave out some domains and prefixes that its table names, and a flag may be false.
ORIGINAL = """{
  "domains": ["www.example.com", "onlinelibrary.wiley.com"],
  "prefixes": ["10.5555"],
  "domains-prefixes": {
    "www.example.com": {"10.5555": {"domain-recognised": true, "domain-confirmed": true}},
    "www.crossref.org": {"10.13003": {"domain-recognised": true, "domain-confirmed": false}},
    "onlinelibrary.wiley.com":
        {"10.1002": {"domain-recognised": true, "domain-confirmed": true}}
  }
}"""


@pytest.fixture
def decisions():
    return Decisions.read(ORIGINAL)


def _table(row) -> str:
    return json.dumps({"domains-prefixes": {"a.org": {"10.5555": row}}})


def test_load_reads_this_projects_artifact():
    artifacts = Artifacts(
        prefixes=frozenset({("10.5555", "crossref"), ("10.6666", "datacite")}),
        recognised=frozenset({("a.org", "10.5555"), ("b.org", "10.6666")}),
        confirmed=frozenset({("a.org", "10.5555")}),
    )
    assert Decisions.read(render(artifacts)[DECISIONS_JSON]) == Decisions(
        domains=frozenset({"a.org", "b.org"}),
        prefixes=frozenset({"10.5555", "10.6666"}),
        recognised=frozenset({("a.org", "10.5555"), ("b.org", "10.6666")}),
        confirmed=frozenset({("a.org", "10.5555")}),
    )


def test_load_reads_the_original_services_artifact(decisions):
    assert decisions == Decisions(
        domains=frozenset({"www.example.com", "www.crossref.org", "onlinelibrary.wiley.com"}),
        prefixes=frozenset({"10.5555", "10.13003", "10.1002"}),
        recognised=frozenset(
            {("www.example.com", "10.5555"), ("www.crossref.org", "10.13003"), ("onlinelibrary.wiley.com", "10.1002")}
        ),
        confirmed=frozenset({("www.example.com", "10.5555"), ("onlinelibrary.wiley.com", "10.1002")}),
    )


def test_load_takes_one_and_zero_as_flags():
    loaded = Decisions.read(_table({"domain-recognised": 1, "domain-confirmed": 0}))
    assert (loaded.recognised, loaded.confirmed) == (frozenset({("a.org", "10.5555")}), frozenset())


def test_load_takes_a_missing_flag_as_false():
    assert Decisions.read(_table({"domain-recognised": True})).confirmed == frozenset()


def test_load_lower_cases_domains():
    loaded = Decisions.read('{"domains": ["WWW.Example.COM"], "domains-prefixes": {"A.ORG": {}}}')
    assert loaded.domains == frozenset({"www.example.com", "a.org"})


@pytest.mark.parametrize(
    "text, message",
    [
        ("not json", "not JSON"),
        ("[]", 'expected an object with a "domains-prefixes" object'),
        ('{"domains": [], "prefixes": []}', 'expected an object with a "domains-prefixes" object'),
        ('{"domains-prefixes": []}', 'expected an object with a "domains-prefixes" object'),
        ('{"domains": "a.org", "domains-prefixes": {}}', '"domains" must be a list of strings'),
        ('{"prefixes": [10.5555], "domains-prefixes": {}}', '"prefixes" must be a list of strings'),
        ('{"domains-prefixes": {"a.org": ["10.5555"]}}', '"domains-prefixes"\\["a.org"\\] must be an object'),
        ('{"domains-prefixes": {"a.org": {"10.5555": true}}}', '\\["10.5555"\\] must be an object'),
        (
            _table({"domain-recognised": "yes"}),
            "\\[\"domain-recognised\"\\] must be true/false \\(or 1/0\\), not 'yes'",
        ),
        (_table({"domain-confirmed": 2}), '\\["domain-confirmed"\\] must be true/false \\(or 1/0\\), not 2'),
    ],
)
def test_load_rejects_anything_else_saying_what_is_wrong(text, message):
    with pytest.raises(ValueError, match=message):
        Decisions.read(text)


def test_a_confirmed_pair_is_confirmed_domain_prefix(decisions):
    assert (
        domain_verification(decisions, "www.example.com", "10.5555", allow_domain_only=True)
        == "confirmed-domain-prefix"
    )


def test_a_recognised_pair_is_recognised_domain_prefix(decisions):
    assert (
        domain_verification(decisions, "www.crossref.org", "10.13003", allow_domain_only=False)
        == "recognised-domain-prefix"
    )


def test_a_known_domain_with_another_prefix_is_recognised_domain_when_allowed(decisions):
    assert domain_verification(decisions, "www.example.com", "10.9999", allow_domain_only=True) == "recognised-domain"


def test_a_known_domain_with_another_prefix_is_nothing_when_domain_only_is_not_allowed(decisions):
    assert domain_verification(decisions, "www.example.com", "10.9999", allow_domain_only=False) is None


def test_a_domain_only_in_the_table_counts_as_known(decisions):
    assert domain_verification(decisions, "www.crossref.org", "10.9999", allow_domain_only=True) == "recognised-domain"


def test_an_unknown_domain_is_nothing(decisions):
    assert domain_verification(decisions, "elsewhere.org", "10.5555", allow_domain_only=True) is None


def test_no_domain_is_nothing(decisions):
    assert domain_verification(decisions, None, "10.5555", allow_domain_only=True) is None


def test_domains_are_compared_without_case(decisions):
    assert (
        domain_verification(decisions, "WWW.Example.com", "10.5555", allow_domain_only=False)
        == "confirmed-domain-prefix"
    )


def test_domains_are_compared_without_stripping_www(decisions):
    assert domain_verification(decisions, "example.com", "10.5555", allow_domain_only=True) is None


def test_prefixes_on_a_domain_are_those_its_table_row_names(decisions):
    assert prefixes_on(decisions, "www.crossref.org") == {"10.13003"}


def test_prefixes_on_an_unknown_or_missing_domain_are_empty(decisions):
    assert (prefixes_on(decisions, "elsewhere.org"), prefixes_on(decisions, None)) == (set(), set())


def test_an_excluded_domain_vouches_for_no_prefix_even_in_an_artifact_made_elsewhere():
    from landing.core.matching.decisions import domain_verification, excluding, prefixes_on

    text = json.dumps(
        {
            "domains": ["vimeo.com", "journals.plos.org"],
            "domains-prefixes": {
                "player.vimeo.com": {"10.1371": {"domain-recognised": True, "domain-confirmed": True}},
                "journals.plos.org": {"10.1371": {"domain-recognised": True, "domain-confirmed": True}},
            },
        }
    )
    decisions = excluding(Decisions.read(text), frozenset({"vimeo.com"}))
    assert domain_verification(decisions, "player.vimeo.com", "10.1371", allow_domain_only=True) is None
    assert domain_verification(decisions, "vimeo.com", "10.1371", allow_domain_only=True) is None
    assert prefixes_on(decisions, "player.vimeo.com") == set()
    assert domain_verification(decisions, "journals.plos.org", "10.1371", False) == "confirmed-domain-prefix"


def test_pairs_last_seen_before_a_day_are_dropped_and_undated_ones_kept():
    from landing.core.matching.decisions import seen_since

    text = json.dumps(
        {
            "domains-prefixes": {
                "old.example": {
                    "10.1": {"domain-recognised": True, "domain-confirmed": True, "last-seen": "2026-01-01"}
                },
                "new.example": {
                    "10.1": {"domain-recognised": True, "domain-confirmed": True, "last-seen": "2026-06-01"}
                },
                "undated.example": {"10.1": {"domain-recognised": True, "domain-confirmed": False}},
            }
        }
    )
    decisions = seen_since(Decisions.read(text), "2026-03-01")
    assert decisions.recognised == {("new.example", "10.1"), ("undated.example", "10.1")}
    assert decisions.confirmed == {("new.example", "10.1")}
    assert domain_verification(decisions, "old.example", "10.1", allow_domain_only=True) is None


def test_the_artifacts_decision_structure_reads_back_and_writes_again_byte_for_byte():
    artifacts = Artifacts(
        prefixes=frozenset({("10.5555", "crossref"), ("10.6666", "datacite"), ("10.7777", "")}),
        recognised=frozenset({("a.org", "10.5555"), ("b.org", "10.6666")}),
        confirmed=frozenset({("a.org", "10.5555")}),
        ends=frozenset({("a.org", "10.5555", "page", 3), ("a.org", "10.5555", "timeout", 1)}),
        seen=frozenset({("10.5555", "a.org", "2026-11-01T00:00:00Z", "2026-11-02T00:00:00Z")}),
    )
    text = render(artifacts)[DECISIONS_JSON]
    read = Decisions.read(text)
    assert (read.to_json(), read.ends(), read.first_seen[("a.org", "10.5555")]) == (
        text,
        {("a.org", "10.5555", "page", 3), ("a.org", "10.5555", "timeout", 1)},
        "2026-11-01T00:00:00Z",
    )


def test_the_matcher_refuses_visit_ends_that_are_not_counts_as_the_export_does():
    with pytest.raises(ValueError, match=r'\["a.org"\]\["10.5555"\]\["visits"\] must map classes to counts'):
        Decisions.read(_table({"domain-recognised": True, "visits": {"page": "2"}}))


def test_excluding_a_domain_drops_its_pairs_visit_ends_too():
    from landing.core.matching.decisions import excluding

    text = json.dumps(
        {
            "domains-prefixes": {
                "youtube.com": {"10.1": {"domain-recognised": True, "visits": {"page": 2}}},
                "a.org": {"10.1": {"domain-recognised": True, "visits": {"page": 1}}},
            }
        }
    )
    kept = excluding(Decisions.read(text), frozenset({"youtube.com"}))
    assert (kept.ends(), kept.domains) == ({("a.org", "10.1", "page", 1)}, {"a.org"})
