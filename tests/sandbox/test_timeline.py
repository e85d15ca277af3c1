"""The truth of an evolving world over time: where prefixes land at a moment, pairs ever true, moves detected."""

from datetime import timedelta

from landing_dev.sandbox.timeline import Detection, Doi, Timeline, detections, domains_at, moment, summary, wrong_pairs

T = moment("2030-01-01T00:00:00Z")


def _at(days):
    return (T + timedelta(days=days)).strftime("%Y-%m-%dT%H:%M:%SZ")


DOIS = [
    Doi("crossref", "1", "10.1000", frozenset({"www.a.example"})),
    Doi("crossref", "1", "10.1000", frozenset({"www.b.example"})),
    Doi("crossref", "2", "10.2000", frozenset({"www.a.example"})),
    Doi("datacite", "x.y", "10.3000", frozenset({"data.c.example"})),
    Doi("crossref", "1", "10.4000", frozenset({"www.b.example"})),
]
EVENTS = [
    {"at": _at(3), "kind": "move", "host": "www.a.example", "to": "a.platform0.example", "old": "redirect"},
    {"at": _at(1), "kind": "new-owner", "ra": "datacite", "owner": "x.y", "prefixes": ["10.3000"]},
    {"at": _at(2), "kind": "new-prefix", "ra": "crossref", "owner": "1", "prefix": "10.4000"},
    {"at": _at(4), "kind": "down", "host": "www.b.example", "how": "503"},
]
TIMELINE = Timeline(DOIS, EVENTS)


def test_a_prefix_lands_on_its_sites_old_domain_before_the_move_and_on_the_new_one_from_its_moment():
    assert TIMELINE.domains_at("10.1000", T + timedelta(days=2.9)) == {"www.a.example", "www.b.example"}
    assert TIMELINE.domains_at("10.1000", T + timedelta(days=3)) == {"a.platform0.example", "www.b.example"}


def test_a_site_that_is_down_still_holds_its_prefixes():
    assert TIMELINE.domains_at("10.4000", T + timedelta(days=5)) == {"www.b.example"}


def test_an_owner_or_a_prefix_that_appears_later_lands_nowhere_before_its_moment():
    assert TIMELINE.domains_at("10.3000", T) == set()
    assert TIMELINE.domains_at("10.3000", T + timedelta(days=1)) == {"data.c.example"}
    assert TIMELINE.domains_at("10.4000", T + timedelta(days=1.9)) == set()


def test_pairs_ever_true_keep_the_old_domain_after_a_move():
    assert TIMELINE.pairs_until(T + timedelta(days=10)) == {
        ("10.1000", "www.a.example"),
        ("10.1000", "a.platform0.example"),
        ("10.1000", "www.b.example"),
        ("10.2000", "www.a.example"),
        ("10.2000", "a.platform0.example"),
        ("10.3000", "data.c.example"),
        ("10.4000", "www.b.example"),
    }


def test_a_pair_named_before_it_was_true_or_never_true_is_wrong():
    named = {("10.1000", "a.platform0.example"), ("10.2000", "www.b.example"), ("10.1000", "www.a.example")}
    assert wrong_pairs(TIMELINE, named, T + timedelta(days=2)) == {
        ("10.1000", "a.platform0.example"),
        ("10.2000", "www.b.example"),
    }
    assert wrong_pairs(TIMELINE, named, T + timedelta(days=3)) == {("10.2000", "www.b.example")}


def test_a_move_is_detected_by_the_first_version_after_it_that_names_each_prefix_on_the_new_domain():
    versions = [
        (T + timedelta(days=5), {("10.1000", "a.platform0.example")}),
        (T + timedelta(days=2), {("10.2000", "a.platform0.example")}),  # before the move: does not count
        (T + timedelta(days=4), {("10.1000", "www.b.example")}),
        (T + timedelta(days=6), {("10.1000", "a.platform0.example"), ("10.2000", "a.platform0.example")}),
    ]
    moved = T + timedelta(days=3)
    assert detections(TIMELINE, versions) == [
        Detection(moved, "10.1000", "a.platform0.example", T + timedelta(days=5)),
        Detection(moved, "10.2000", "a.platform0.example", T + timedelta(days=6)),
    ]


def test_the_summary_gives_median_and_max_days_and_the_share_within_the_bound():
    found = [
        Detection(T, "10.1", "a", T + timedelta(days=1)),
        Detection(T, "10.2", "a", T + timedelta(days=3)),
        Detection(T, "10.3", "a", T + timedelta(days=9)),
        Detection(T, "10.4", "a", None),
    ]
    assert summary(found, 7) == {
        "pairs": 4,
        "shown": 3,
        "median_days": 3.0,
        "max_days": 9.0,
        "within": 0.5,
        "pending": 0,
    }


def test_domains_at_reads_a_world_directory(tmp_path):
    (tmp_path / "truth.jsonl").write_text(
        '{"ra": "crossref", "member_id": "1", "prefix": "10.1000", "final_url": "https://www.a.example/1",'
        ' "end_url": "https://www.a.example/1", "landing_url": "https://www.a.example/1"}\n'
    )
    (tmp_path / "timeline.jsonl").write_text(
        '{"at": "2030-01-02T00:00:00Z", "kind": "move", "host": "www.a.example", "to": "new.example"}\n'
    )
    assert domains_at(tmp_path, "10.1000", T) == {"www.a.example"}
    assert domains_at(tmp_path, "10.1000", T + timedelta(days=1)) == {"new.example"}


def test_a_pair_not_shown_that_moved_within_the_bound_of_the_end_is_pending_and_in_no_share():
    found = [
        Detection(T, "10.1", "a", T + timedelta(days=2)),
        Detection(T, "10.2", "a", None),
        Detection(T + timedelta(days=5), "10.3", "a", None),
    ]
    figures = summary(found, 7, until=T + timedelta(days=10))
    assert (figures["within"], figures["pending"]) == (0.5, 1)


def test_a_move_is_registry_visible_unless_it_says_it_is_silent():
    silent = {"at": _at(5), "kind": "move", "host": "www.b.example", "to": "b.platform1.example", "registry": False}
    timeline = Timeline(DOIS, [*EVENTS, silent])
    assert [e["host"] for e in timeline.moves(registry=True)] == ["www.a.example"]
    assert [e["host"] for e in timeline.moves(registry=False)] == ["www.b.example"]
    assert detections(timeline, [], timeline.moves(registry=False)) == [
        Detection(T + timedelta(days=5), p, "b.platform1.example", None) for p in ("10.1000", "10.4000")
    ]


def test_a_prefixs_site_shares_count_its_dois_by_landing_site_and_a_new_domain_is_its_site():
    dois = [Doi("crossref", "1", "10.1000", frozenset(), site) for site in ("a.example",) * 3 + ("b.example", None)]
    timeline = Timeline(dois, EVENTS)
    assert timeline.site_shares() == {"10.1000": {"a.example": 0.75, "b.example": 0.25}}
    assert (timeline.site_of("a.platform0.example"), timeline.site_of("c.example")) == ("www.a.example", "c.example")


def test_the_registries_show_a_move_only_for_a_prefix_whose_dois_on_the_site_are_registered_there():
    dois = [
        Doi("crossref", "1", "10.1000", frozenset({"www.a.example"}), registered="www.a.example"),
        Doi("crossref", "2", "10.2000", frozenset({"www.a.example"}), registered="dx.owner.example"),
    ]
    move = {"at": _at(3), "kind": "move", "host": "www.a.example", "to": "a.platform0.example", "old": "redirect"}
    silent = {**move, "registry": False}
    timeline = Timeline(dois, [move])
    assert [timeline.registry_shows(m, p) for m in (move, silent) for p in ("10.1000", "10.2000")] == [
        True,
        False,
        False,
        False,
    ]
