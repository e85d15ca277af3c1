"""bench/continuous.py's measures: growth per simulated day, tenths of a run, versions' times, prefixes appearing."""

from datetime import UTC, datetime, timedelta

from bench.continuous import appearances, by_move, per_day, site_coverage, tenths, version_time
from landing_dev.sandbox.timeline import Detection, Doi, Timeline

T = datetime(2030, 1, 1, tzinfo=UTC)


def test_growth_per_day_is_the_last_reading_of_each_day_less_the_day_before():
    series = [(T + timedelta(hours=h), v) for h, v in ((1, 5), (23, 10), (25, 12), (47, 30), (49, 31), (70, 40))]
    assert per_day(series, T, 4) == [10, 20, None, None]


def test_a_day_without_readings_inside_it_keeps_the_last_value_before_it():
    series = [(T + timedelta(hours=2), 7), (T + timedelta(days=3, hours=1), 9)]
    assert per_day(series, T, 3) == [7, 0, 0]


def test_tenths_are_the_means_of_the_second_and_the_last_tenth():
    assert tenths([1] * 10 + [3] * 10 + [5] * 70 + [9] * 10) == (3, 9)
    assert tenths([1, 2, 3]) == (None, None)


def test_a_version_name_gives_its_simulated_time_whatever_its_same_second_number():
    assert version_time("20300215T120000Z") == version_time("20300215T120000Z-3") == T + timedelta(days=45, hours=12)


def test_a_new_owners_prefixes_appear_in_the_first_version_after_it_that_names_them():
    events = [
        {
            "at": "2030-01-02T00:00:00Z",
            "kind": "new-owner",
            "ra": "crossref",
            "owner": "7",
            "prefixes": ["10.7", "10.8"],
        },
        {"at": "2030-01-03T00:00:00Z", "kind": "new-prefix", "ra": "crossref", "owner": "1", "prefix": "10.9"},
        {"at": "2030-01-03T00:00:00Z", "kind": "down", "host": "a.example", "how": "503"},
    ]
    timeline = Timeline([Doi("crossref", "7", "10.7", frozenset({"a.example"}))], events)
    versions = [(T, {"10.7"}), (T + timedelta(days=2), {"10.7"}), (T + timedelta(days=4), {"10.7", "10.9"})]
    assert appearances(timeline, versions) == [
        Detection(T + timedelta(days=1), "10.7", "", T + timedelta(days=2)),
        Detection(T + timedelta(days=1), "10.8", "", None),
        Detection(T + timedelta(days=2), "10.9", "", T + timedelta(days=4)),
    ]


def test_detections_group_by_move_in_the_order_they_came():
    a, b = T + timedelta(days=1), T + timedelta(days=2)
    found = [
        Detection(a, "10.1", "x.example", None),
        Detection(b, "10.2", "y.example", b),
        Detection(a, "10.3", "x.example", b),
    ]
    assert by_move(found) == {(a, "x.example"): [found[0], found[2]], (b, "y.example"): [found[1]]}


def test_site_coverage_counts_the_sites_holding_5_percent_of_a_sampled_prefixs_dois_seen_under_either_name():
    dois = [Doi("crossref", "1", "10.1", frozenset({"a.example"})) for _ in range(18)]
    dois += [
        Doi("crossref", "1", "10.1", frozenset({"b.example"})),
        Doi("crossref", "1", "10.1", frozenset({"c.example"})),
    ]
    dois += [Doi("crossref", "2", "10.2", frozenset({"d.example"}))]  # never sampled: not counted
    moved = [{"at": "2030-01-02T00:00:00Z", "kind": "move", "host": "b.example", "to": "b-new.example"}]
    timeline = Timeline(dois, moved)
    # 20 DOIs: a.example holds 90%, b.example and c.example 5% each; b.example was seen under its new name.
    assert site_coverage(timeline, {"10.1": {"a.example", "b-new.example"}}, T + timedelta(days=2)) == (2, 3)
