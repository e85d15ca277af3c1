"""Evolving worlds' timelines: drawn from a seed at the rates asked, written in order, read back by the index."""

import json
from datetime import timedelta

import pytest

from landing_dev.sandbox.evolution import KINDS, Rates, Site, background, evolve, given, plan, sites_and_owners
from landing_dev.sandbox.generator import generate
from landing_dev.sandbox.timeline import moment
from landing_dev.sandbox.world import World, WorldError
from tests.sandbox.test_world import scrapy


def _sites(n, meta=True):
    return [
        Site(f"www.s{i}.example", frozenset({("crossref", f"10.{1000 + i}")}), frozenset({("crossref", str(i))}), meta)
        for i in range(n)
    ]


def _owners(n):
    return [
        {"ra": "crossref", "owner": str(i), "prefixes": [f"10.{1000 + i}", f"10.{5000 + i}"]}
        | {"dois": {f"10.{1000 + i}": 5, f"10.{5000 + i}": 2}}
        for i in range(n)
    ]


def _plan(rates, seed=0, sites=1000, owners=1000):
    return plan(_sites(sites), _owners(owners), rates, seed)


def _kinds(events):
    return {kind: sum(e["kind"] == kind for e in events) for kind in KINDS}


def test_the_same_seed_draws_the_same_timeline_and_another_seed_another():
    rates = Rates(days=60, moves=0.05, new_owners=3, outages=0.05, meta_flips=0.05)
    assert _plan(rates, seed=4) == _plan(rates, seed=4)
    assert _plan(rates, seed=4) != _plan(rates, seed=5)


def test_counts_follow_the_rates_over_the_horizon():
    # 1,000 sites for 90 days: 1% moving per 30 days is 30 moves; 2 new owners a week, 13 weeks: 26.
    events = _plan(Rates(days=91, moves=0.01, new_owners=2, new_prefixes=1, outages=0.02, meta_flips=0.01))
    counts = _kinds(events)
    assert (counts["move"], counts["new-owner"], counts["new-prefix"]) == (30, 26, 13)
    stable = 1000 - 26  # the sites of owners that appear later are left alone
    assert (counts["down"], counts["meta-tags-lost"]) == (
        round(0.02 * 91 / 30 * stable),
        round(0.01 * 91 / 30 * stable),
    )


def test_every_event_falls_within_the_horizon_in_order_of_time():
    rates = Rates(start="2030-03-01T00:00:00Z", days=30, moves=0.1, new_owners=5, outages=0.1, meta_flips=0.1)
    events = _plan(rates)
    times = [moment(e["at"]) for e in events]
    assert times == sorted(times)
    start = moment(rates.start)
    assert all(start <= t < start + timedelta(days=30) for t in times)


def test_an_outage_ends_within_half_to_one_and_a_half_times_its_mean_length():
    events = _plan(Rates(days=365, moves=0, new_owners=0, new_prefixes=0, meta_flips=0, outages=0.05, outage_hours=10))
    downs = {e["host"]: moment(e["at"]) for e in events if e["kind"] == "down"}
    ups = {e["host"]: moment(e["at"]) for e in events if e["kind"] == "up"}
    assert ups and set(ups) <= set(downs)
    assert all(timedelta(hours=5) <= ups[h] - downs[h] <= timedelta(hours=15) for h in ups)


def test_given_events_make_the_timeline_in_order_of_time_described_as_drawn_ones():
    planted = [
        {"at": "2030-01-04T00:00:00Z", "kind": "move", "host": "www.s2.example"},
        {"at": "2030-01-03T00:00:00Z", "kind": "meta-tags-lost", "host": "www.s1.example"},
    ]
    lost, move = given(_sites(3), planted, Rates(days=30))
    assert lost == {
        "at": "2030-01-03T00:00:00Z",
        "kind": "meta-tags-lost",
        "host": "www.s1.example",
        "domain": "www.s1.example",
        "prefixes": ["10.1001"],
        "owners": ["crossref/1"],
    }
    assert (move["kind"], move["from"], move["to"], move["old"]) == (
        "move",
        "www.s2.example",
        "www-s2.platform0.example",
        "redirect",
    )


@pytest.mark.parametrize(
    "event, said",
    [
        ({"at": "2030-01-03T00:00:00Z", "kind": "move", "host": "www.nowhere.example"}, "host 'www.nowhere.example'"),
        (
            {"at": "2030-02-03T00:00:00Z", "kind": "move", "host": "www.s1.example"},
            "at 2030-02-03T00:00:00Z falls outside",
        ),
        ({"at": "2030-01-03T00:00:00Z", "kind": "new-owner", "host": "www.s1.example"}, "kind 'new-owner'"),
        ({"at": "soon", "kind": "up", "host": "www.s1.example"}, "at 'soon'"),
    ],
)
def test_a_given_event_the_world_cannot_hold_is_refused_naming_it(event, said):
    with pytest.raises(ValueError, match=f"event 1: {said}"):
        given(_sites(3), [event], Rates(days=30))


def test_a_move_names_its_site_its_new_domain_and_the_prefixes_it_takes_there():
    (move,) = [e for e in _plan(Rates(days=30, moves=0.001, new_owners=0, new_prefixes=0)) if e["kind"] == "move"]
    number = int(move["host"].split(".")[1][1:])
    assert move["from"] == move["host"]
    assert move["to"] == f"www-s{number}.platform0.example"
    assert move["prefixes"] == [f"10.{1000 + number}"]
    assert move["old"] in ("redirect", "gone")


def test_a_new_prefix_is_a_second_prefix_of_an_owner_that_keeps_its_first():
    events = _plan(Rates(days=70, moves=0, new_owners=0, new_prefixes=1))
    added = [e for e in events if e["kind"] == "new-prefix"]
    assert len(added) == 10
    assert all(e["prefix"] == f"10.{5000 + int(e['owner'])}" for e in added)


def test_bad_rates_are_refused_with_the_value_named():
    with pytest.raises(ValueError, match=r"moves=-1: use a number, 0 or more"):
        _plan(Rates(moves=-1))
    with pytest.raises(ValueError, match=r"start 'soon'"):
        _plan(Rates(start="soon"))


@pytest.fixture(scope="module")
def evolved(tmp_path_factory):
    directory = tmp_path_factory.mktemp("evolved")
    generate(directory, 600, seed=3)
    counts = evolve(directory, Rates(days=60, moves=0.1, new_owners=2, new_prefixes=1, outages=0.1), seed=3)
    return directory, counts


def _events(directory):
    return [json.loads(line) for line in (directory / "timeline.jsonl").read_text().splitlines()]


def test_evolve_writes_one_event_a_line_with_the_counts_it_returns(evolved):
    directory, counts = evolved
    events = _events(directory)
    assert counts == {"events": len(events), **_kinds(events)}
    assert counts["move"] > 0 and counts["new-owner"] > 0


def test_evolve_changes_only_the_sites_the_truth_lands_on(evolved):
    directory, _ = evolved
    sites, _ = sites_and_owners(directory)
    hosts = {site.host for site in sites}
    assert {e["host"] for e in _events(directory) if "host" in e} <= hosts


def test_the_index_hides_a_new_owner_until_it_appears(evolved):
    directory, _ = evolved
    event = next(e for e in _events(directory) if e["kind"] == "new-owner")
    world = World(directory)
    try:
        at = moment(event["at"]).timestamp()
        world.now = lambda: at - 1
        assert world.owner(event["ra"], event["owner"]) is None
        assert world.count(event["ra"], event["owner"]) == 0
        world.now = lambda: at
        assert world.owner(event["ra"], event["owner"])["prefixes"] == event["prefixes"]
        assert world.count(event["ra"], event["owner"]) > 0
    finally:
        world.close()


def test_a_timeline_out_of_order_names_its_line(tmp_path):
    generate(tmp_path, 20, seed=1)
    (tmp_path / "timeline.jsonl").write_text(
        '{"at": "2030-01-02T00:00:00Z", "kind": "up", "host": "a.example"}\n'
        '{"at": "2030-01-01T00:00:00Z", "kind": "up", "host": "a.example"}\n'
    )
    with pytest.raises(WorldError, match=r"timeline.jsonl:2: events must be in order of 'at'"):
        World(tmp_path)


@pytest.mark.parametrize(
    "line, said",
    [
        (
            '{"at": "2030-01-01T00:00:00Z", "kind": "moved", "host": "a.example"}',
            "'kind' must be one of move, new-owner",
        ),
        ('{"at": "2030-01-01T00:00:00Z", "kind": "move", "host": "a.example"}', "a 'move' event needs 'to'"),
        (
            '{"at": "tomorrow", "kind": "up", "host": "a.example"}',
            "'at' must be a UTC stamp such as 2030-01-01T00:00:00Z",
        ),
    ],
)
def test_an_event_the_server_cannot_apply_names_its_line_and_what_is_wrong(tmp_path, line, said):
    generate(tmp_path, 20, seed=1)
    (tmp_path / "timeline.jsonl").write_text(line + "\n")
    with pytest.raises(WorldError, match=rf"timeline.jsonl:1: {said}"):
        World(tmp_path)


def test_scrapy_sandbox_evolve_writes_the_timeline_and_refuses_a_bad_start_with_status_2(evolved, tmp_path):
    directory, _ = evolved
    copy = tmp_path / "w"
    copy.mkdir()
    for name in ("world.json", "dois.jsonl", "routes.jsonl", "truth.jsonl"):
        (copy / name).write_bytes((directory / name).read_bytes())
    done = scrapy("sandbox", "evolve", str(copy), "--seed", "3", "--days", "60", "--moves", "0.1", "--new-owners", "2")
    assert done.returncode == 0, done.stderr
    assert f"wrote {copy}/timeline.jsonl from 2030-01-01T00:00:00Z for 60 days" in done.stdout
    rates = Rates(days=60, moves=0.1, new_owners=2)
    expected = [background(rates, 3), *plan(*sites_and_owners(copy), rates, seed=3)]
    assert _events(copy) == expected
    refused = scrapy("sandbox", "evolve", str(copy), "--start", "soon")
    assert (refused.returncode, refused.stderr.strip()) == (
        2,
        "sandbox: start 'soon': use a UTC instant such as 2030-01-01T00:00:00Z",
    )


def test_scrapy_sandbox_evolve_plants_the_events_a_file_lists(evolved, tmp_path):
    directory, _ = evolved
    copy = tmp_path / "w"
    copy.mkdir()
    for name in ("world.json", "dois.jsonl", "routes.jsonl", "truth.jsonl"):
        (copy / name).write_bytes((directory / name).read_bytes())
    sites, _ = sites_and_owners(copy)
    planted = [{"at": "2030-01-05T00:00:00Z", "kind": "meta-tags-lost", "host": sites[0].host}]
    (tmp_path / "events.json").write_text(json.dumps(planted))
    done = scrapy("sandbox", "evolve", str(copy), "--days", "30", "--events", str(tmp_path / "events.json"))
    assert done.returncode == 0, done.stderr
    assert _events(copy) == [background(Rates(days=30), 0), *given(sites, planted, Rates(days=30))]
    assert [e["kind"] for e in _events(copy)] == ["background-updates", "meta-tags-lost"]


def test_a_share_of_the_moves_is_registry_visible_and_a_silent_move_keeps_a_redirect():
    moves = [e for e in _plan(Rates(days=90, moves=0.1, registry_moves=0.5)) if e["kind"] == "move"]
    silent = [e for e in moves if not e["registry"]]
    assert 0.4 < len(silent) / len(moves) < 0.6
    assert {e["old"] for e in silent} == {"redirect"}


def test_the_registry_share_changes_no_other_event():
    def others(share):
        events = _plan(Rates(days=60, moves=0.05, registry_moves=share))
        return [{k: v for k, v in e.items() if k not in ("registry", "old")} for e in events]

    assert others(0) == others(1)


def test_a_given_silent_move_whose_old_site_is_gone_is_refused():
    event = {"at": "2030-01-03T00:00:00Z", "kind": "move", "host": "www.s1.example", "old": "gone", "registry": False}
    with pytest.raises(ValueError, match="event 1: a registry-silent move keeps a redirect"):
        given(_sites(3), [event], Rates(days=30))
