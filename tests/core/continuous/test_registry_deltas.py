from datetime import UTC, datetime, timedelta

from landing.core.continuous import registry_deltas as deltas
from landing.core.continuous.freshness import (
    DOMAIN_CHANGED,
    NEVER_SAMPLED,
    REGISTRY,
    REGISTRY_CHANGED,
    SIGNALLED,
    Budget,
    Pick,
    Policy,
    Prefix,
    plan,
    prefix_of,
)

NOW = datetime(2030, 1, 2, 4, tzinfo=UTC)
OVERLAP, LONGEST = timedelta(minutes=60), timedelta(days=7)
SAMPLED = "2030-01-01T00:00:00Z"
POLICY = Policy(refresh_days=7, recheck_days=1, sample_min=10, sample_max=10, changed_dois=30)


def _doc(tally, sampled=SAMPLED, **more):
    return {
        "prefix/ra": "crossref",
        "prefix/owner": "7",
        "prefix/prefix": "10.1",
        "prefix/dois": 500,
        "prefix/sampled": sampled,
        "prefix/signals": [],
        "prefix/resources": tally,
        **more,
    }


def _look(tallies, *pairs, keep=30):
    look = deltas.Look(keep=keep)
    look.add(deltas.entries(pairs), tallies)
    return look


def _observed(doc, look, prefix="10.1", limit=30):
    return deltas.observed(doc, look.seen.get(prefix, {}), look.kept.get(prefix, {}), limit)


def test_a_look_asks_from_the_last_end_less_the_overlap_up_to_now():
    assert deltas.window("2030-01-02T03:00:00Z", NOW, OVERLAP, LONGEST) == deltas.Window(
        datetime(2030, 1, 2, 2, tzinfo=UTC), NOW, False
    )


def test_a_first_look_asks_for_nothing_so_that_the_next_starts_now():
    assert deltas.window(None, NOW, OVERLAP, LONGEST) is None


def test_a_look_after_a_long_stop_asks_for_the_longest_window_only_and_says_it_was_capped():
    assert deltas.window("2029-11-01T00:00:00Z", NOW, OVERLAP, LONGEST) == deltas.Window(NOW - LONGEST, NOW, True)


def test_entries_read_the_doi_its_prefix_and_its_resource_domain_and_leave_out_what_has_none():
    found = deltas.entries(
        [("10.5061/ABC", "https://Repo.example:8443/record/1"), ("10.5061/x", None), ("not a doi", "https://a.example")]
    )
    assert found == [deltas.Entry("10.5061/abc", "10.5061", "repo.example")]


def test_a_doi_on_a_domain_its_prefix_was_not_seen_on_signals_the_prefix_and_is_kept_for_a_visit():
    look = _look(
        {"10.1": {"old.example": 40}}, ("10.1/a", "https://new.example/a"), ("10.1/b", "https://old.example/b")
    )
    doc, kept = _observed(_doc({"old.example": 40}), look)
    assert (doc["prefix/signals"], doc["prefix/registry-dois"], kept) == ([REGISTRY_CHANGED], ["10.1/a"], 1)
    assert doc["prefix/resources"] == {"old.example": 41, "new.example": 1}


def test_a_doi_on_a_known_domain_changes_nothing_but_the_tally():
    look = _look({"10.1": {"old.example": 40}}, ("10.1/b", "https://old.example/b"))
    doc, kept = _observed(_doc({"old.example": 40}), look)
    assert (doc["prefix/signals"], doc.get("prefix/registry-dois"), kept) == ([], None, 0)
    assert doc["prefix/resources"] == {"old.example": 41}


def test_a_doi_of_a_prefix_not_known_is_not_counted():
    look = _look({"10.9": None}, ("10.9/a", "https://new.example/a"))
    assert (look.dois, look.seen, look.kept) == (1, {}, {})


def test_a_prefix_never_sampled_learns_its_domains_without_a_signal():
    look = _look({"10.1": {"old.example": 4}}, ("10.1/a", "https://new.example/a"))
    doc, kept = _observed(_doc({"old.example": 4}, sampled=None), look)
    assert (doc["prefix/signals"], doc.get("prefix/registry-dois"), kept) == ([], None, 0)
    assert doc["prefix/resources"] == {"old.example": 4, "new.example": 1}


def test_a_prefix_never_sampled_keeps_two_dois_of_each_domain_it_has_no_majority_of_until_its_first_sample():
    pairs = [(f"10.1/n{n}", f"https://new.example/{n}") for n in range(3)] + [("10.1/o", "https://old.example/o")]
    look = _look({"10.1": {"old.example": 4}}, *pairs)
    doc, _ = _observed(_doc({"old.example": 4}, sampled=None), look)
    assert doc["prefix/registry-early"] == {"new.example": ["10.1/n0", "10.1/n1"]}


def _first_visits(*ends):
    return [
        {"pid/doi": doi, "snapshot/resource-url": f"https://{domain}/x", "snapshot/timestamp": "2030-01-02T05:00:00Z"}
        for doi, domain in ends
    ]


def test_a_first_sample_that_missed_a_domain_the_registries_showed_keeps_its_dois_for_a_visit_and_signals():
    doc = _doc({}, sampled=None, **{"prefix/registry-early": {"old.example": ["10.1/o"], "new.example": ["10.1/n"]}})
    sample = {"sample/planned": "2030-01-02T04:00:00Z", "sample/dois": ["10.1/a", "10.1/b"]}
    after = deltas.first_sampled(doc, sample, _first_visits(("10.1/a", "old.example"), ("10.1/b", "old.example")))
    assert (after["prefix/registry-dois"], after["prefix/signals"]) == (["10.1/n"], [REGISTRY_CHANGED])
    assert "prefix/registry-early" not in after


def test_a_doi_the_first_sample_visited_before_its_site_moved_is_kept_for_a_visit_again():
    doc = _doc({}, sampled=None, **{"prefix/registry-early": {"new.example": ["10.1/a"]}})
    sample = {"sample/planned": "2030-01-02T04:00:00Z", "sample/dois": ["10.1/a"]}
    after = deltas.first_sampled(doc, sample, _first_visits(("10.1/a", "old.example")))
    assert (after["prefix/registry-dois"], after["prefix/signals"]) == (["10.1/a"], [REGISTRY_CHANGED])


def test_a_first_sample_that_reached_every_domain_the_registries_showed_keeps_nothing_for_a_visit():
    doc = _doc({}, sampled=None, **{"prefix/registry-early": {"new.example": ["10.1/n"]}})
    sample = {"sample/planned": "2030-01-02T04:00:00Z", "sample/dois": ["10.1/a"]}
    after = deltas.first_sampled(doc, sample, _first_visits(("10.1/a", "new.example")))
    assert (after.get("prefix/registry-dois"), after["prefix/signals"], "prefix/registry-early" in after) == (
        None,
        [],
        False,
    )


def test_a_prefix_with_no_tally_yet_learns_its_first_domains_without_a_signal():
    look = _look({"10.1": {}}, ("10.1/a", "https://new.example/a"))
    doc, kept = _observed(_doc({}), look)
    assert (doc["prefix/signals"], kept, doc["prefix/resources"]) == ([], 0, {"new.example": 1})


def test_the_dois_kept_for_a_visit_are_bounded_with_those_kept_before_first():
    pairs = [(f"10.1/{n}", f"https://new.example/{n}") for n in range(5)]
    look = _look({"10.1": {"old.example": 40}}, *pairs, keep=30)
    doc, kept = _observed(_doc({"old.example": 40}, **{"prefix/registry-dois": ["10.1/x"]}), look, limit=3)
    assert (doc["prefix/registry-dois"], kept) == (["10.1/x", "10.1/0", "10.1/1"], 2)


def test_a_look_keeps_at_most_its_bound_of_dois_a_domain():
    pairs = [(f"10.1/{n}", f"https://new.example/{n}") for n in range(5)]
    assert _look({"10.1": {"old.example": 40}}, *pairs, keep=2).kept == {"10.1": {"new.example": ["10.1/0", "10.1/1"]}}


def test_a_window_moving_many_dois_onto_a_minority_domain_signals_a_share_moving():
    tally = {"old.example": 90, "side.example": 6}
    pairs = [(f"10.1/{n}", f"https://side.example/{n}") for n in range(6)]
    doc, kept = _observed(_doc(tally), _look({"10.1": tally}, *pairs))
    assert (doc["prefix/signals"], kept) == ([REGISTRY_CHANGED], 6)


def test_a_window_with_a_few_dois_on_a_minority_domain_is_no_share_moving():
    tally = {"old.example": 90, "side.example": 6}
    pairs = [(f"10.1/{n}", f"https://side.example/{n}") for n in range(5)]
    doc, kept = _observed(_doc(tally), _look({"10.1": tally}, *pairs))
    assert (doc["prefix/signals"], kept) == ([], 0)


def test_a_tally_keeps_the_domains_most_seen():
    tally = deltas.tallied({f"d{n:02d}.example": 100 - n for n in range(60)}, {"new.example": 1})
    assert (len(tally), "d49.example" in tally, "d50.example" in tally) == (deltas.TALLY_DOMAINS, True, False)


def test_the_next_plan_picks_registry_signalled_prefixes_first_with_exactly_their_kept_dois():
    moved = prefix_of(_doc({"old.example": 40}, **{"prefix/registry-dois": ["10.1/a", "10.1/b"]}))
    never = Prefix("crossref", "8", "10.2", 10_000)
    signalled = Prefix("crossref", "9", "10.3", 500, NOW - timedelta(days=3), frozenset({DOMAIN_CHANGED}))
    picked = plan([never, signalled, moved], NOW, POLICY, Budget(1_000_000, 3), timedelta(hours=1))
    assert [(p.prefix.prefix, p.reason, p.dois) for p in picked.picks] == [
        ("10.1", REGISTRY, 2),
        ("10.2", NEVER_SAMPLED, 10),
        ("10.3", SIGNALLED, 30),
    ]
    assert picked.picks[0].requests == 2 * 3  # its visits only: no sample query


def test_a_registry_pick_samples_exactly_the_kept_dois_and_clears_them_from_its_prefix():
    doc = _doc({"old.example": 40}, **{"prefix/registry-dois": ["10.1/a"], "prefix/signals": [REGISTRY_CHANGED]})
    pick = Pick(prefix_of(doc), 1, REGISTRY, 3.0)
    sample = deltas.sample("continuous", 9, pick, ["10.1/a"], "2030-01-02T04:00:00Z")
    assert (sample["sample/dois"], sample["sample/size"], sample["sample/reason"]) == (["10.1/a"], 1, REGISTRY)
    after = deltas.picked(doc)
    assert (after["prefix/registry-dois"], after["prefix/signals"], prefix_of(after).registry) == ([], [], 0)


def test_a_registry_visit_reaching_a_new_domain_signals_a_deeper_sample_and_is_no_refresh():
    def visit(doi, final, at):
        return {
            "pid/doi": doi,
            "snapshot/final-url-domain": final,
            "snapshot/resource-url": f"https://{final}/x",
            "snapshot/timestamp": at,
        }

    doc = _doc({"old.example": 40}, **{"prefix/signals": [REGISTRY_CHANGED]})
    sample = {"sample/planned": "2030-01-02T04:00:00Z", "sample/dois": ["10.1/a"]}
    after = deltas.visited(
        doc,
        sample,
        [
            visit("10.1/z", "old.example", "2030-01-01T01:00:00Z"),
            visit("10.1/a", "new.example", "2030-01-02T05:00:00Z"),
        ],
    )
    assert (after["prefix/signals"], after["prefix/sampled"]) == ([DOMAIN_CHANGED], SAMPLED)
    assert after["prefix/resources"] == {"old.example": 40, "new.example": 1}


def test_a_domain_missing_from_a_full_tally_is_a_change_only_with_as_many_dois_as_a_share_moving():
    full = {f"d{n:02d}.example": 10 for n in range(deltas.TALLY_DOMAINS)}
    assert deltas.changes(full, {"dropped.example": 1}) == []
    assert deltas.changes(full, {"dropped.example": deltas.MOVE_DOIS}) == ["dropped.example"]
