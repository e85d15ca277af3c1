"""bench/alarms.py's readings: "got worse" items, changed pairs, the planted events, causes and the verdict."""

from bench.alarms import caused, changed_pairs, planted, status_said, verdict, worse_items
from landing_dev.sandbox.evolution import Site


def _site(n: int, meta: bool, owners=None) -> Site:
    owners = owners or {("crossref", str(n))}
    return Site(f"s{n}.example", frozenset({("crossref", f"10.{n}")}), frozenset(owners), meta)


def test_worse_items_count_each_non_empty_kind_and_ignore_the_fix():
    alert = {
        "fix": {"domains-missing-doi": [{"domain": "a.example"}]},
        "worse": {"new-failures": [{"class": "dns"}, {"class": "robots"}], "moved": [], "share-drop": None},
    }
    assert worse_items(alert) == {"new-failures": 2}


def test_worse_items_of_an_unreadable_worse_are_none():
    assert worse_items({"worse": "got worse"}) == {} == worse_items({"worse": None})


def test_a_planted_events_prefixes_are_counted_apart_from_the_noise():
    rows = [
        {"prefix": "10.1", "domain": "a", "appeared": ["good"], "disappeared": [], "unseen-since": None},
        {"prefix": "10.1", "domain": "b", "appeared": [], "disappeared": ["good"], "unseen-since": None},
        {"prefix": "10.2", "domain": "c", "appeared": [], "disappeared": [], "unseen-since": "2030-01-01"},
        {"prefix": "10.3", "domain": "d", "appeared": ["bad"], "disappeared": [], "unseen-since": None},
        "not a pair",
    ]
    assert changed_pairs({"pairs": rows}, {"10.3"}) == {"appeared": 1, "disappeared": 1, "unseen": 1, "expected": 1}


def test_the_planted_sites_are_the_largest_of_two_owners_and_skip_shared_sites():
    sites = [_site(1, True), _site(2, False), _site(3, True), _site(9, True, {("crossref", "1"), ("crossref", "2")})]
    owners = [{"ra": "crossref", "owner": str(n), "dois": {f"10.{n}": n}} for n in (1, 2, 3, 9)]
    lost, move = planted(sites, owners, "2030-01-08T00:00:00Z")
    assert (lost["kind"], lost["host"], move["kind"], move["host"]) == (
        "meta-tags-lost",
        "s3.example",
        "move",
        "s2.example",
    )


def test_a_move_is_caused_only_when_a_worse_item_names_its_new_domain():
    move = {"kind": "move", "host": "old.example", "to": "new.example"}
    named = {"worse": {"moved": [{"prefix": "10.1", "from": ["old.example"], "to": ["new.example"]}]}}
    fixed = {**named, "summary": "Make old.example redirect to new.example."}
    assert caused(named, move) == (True, False)
    assert caused(fixed, move) == (True, True)
    assert caused({"fix": {"failing-domains": [{"domain": "new.example"}]}}, move) == (False, False)


def test_a_failure_class_naming_a_redirect_is_no_fix():
    move = {"kind": "move", "host": "old.example", "to": "new.example"}
    alert = {
        "worse": {"moved": [{"prefix": "10.1", "to": ["new.example"]}]},
        "fix": {"failing-domains": [{"domain": "old.example", "errors": {"too-many-redirects": 3}}]},
        "summary": "3 landing pages could not be read (too-many-redirects 3).",
    }
    assert caused(alert, move) == (True, False)


def test_a_meta_tag_loss_is_caused_when_its_domain_lacks_the_doi_and_fixed_when_a_tag_is_given():
    lost = {"kind": "meta-tags-lost", "host": "a.example", "domain": "a.example"}
    alert = {
        "fix": {"domains-missing-doi": [{"domain": "a.example", "missing": 40}]},
        "summary": 'Add <meta name="citation_doi" content="10.1/x"> to the pages of a.example.',
    }
    assert caused(alert, lost) == (True, True)
    assert caused({"fix": {"domains-missing-doi": [{"domain": "b.example"}]}}, lost) == (False, False)


def test_status_said_keeps_the_changed_pairs_and_the_health():
    line = "continuous run r: 14 prefixes; last version v (3 min ago, 1,204 pairs changed); health FAILING"
    assert status_said(line) == "1,204 pairs changed, health FAILING"


def test_the_verdict_passes_only_without_false_alarms_and_with_every_cause_and_fix():
    clean = {"versions": 20, "alarmed": 0, "members": 0, "changed": 0}
    found = {"detected": [(1.0, True, True), (2.0, True, True)], "members": 0, "changed": 0}
    assert verdict({"unchanged": clean, "planted": found}).endswith(": PASS")
    assert verdict({"unchanged": {**clean, "changed": 1}, "planted": found}).endswith(": FAIL")
    assert verdict({"unchanged": clean, "planted": {**found, "detected": [(1.0, True, True), None]}}).endswith(": FAIL")
