import functools
import math
import random
from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest

from landing.core.continuous.freshness import (
    DOMAIN_CHANGED,
    FAILING,
    META_TAGS_CHANGED,
    NEVER_SAMPLED,
    SHARE_FELL,
    SIGNALLED,
    STALE,
    Budget,
    Policy,
    Prefix,
    ages,
    depth,
    plan,
    request_cost,
    signals,
)

NOW = datetime(2026, 11, 25, 12, tzinfo=UTC)
HOUR = timedelta(hours=1)
POLICY = Policy(refresh_days=7, recheck_days=1, sample_min=10, sample_max=100, changed_dois=30)
FLAT = replace(POLICY, sample_max=10)  # every prefix of 10 DOIs or more samples 10: costs are easy to count
PLENTY = Budget(requests_per_day=1_000_000, requests_per_doi=3)


def _prefix(name, dois=50, days_ago=None, signals=frozenset()):
    sampled = None if days_ago is None else NOW - timedelta(days=days_ago)
    return Prefix("crossref", "1", name, dois, sampled, frozenset(signals))


def _one_pick_budget(cost):
    """A budget whose hourly share is exactly one pick of this cost."""
    return Budget(requests_per_day=cost * 24, requests_per_doi=3)


def test_a_never_sampled_prefix_is_picked_before_a_stale_one():
    stale, new = _prefix("10.1", days_ago=30), _prefix("10.2")
    found = plan([stale, new], NOW, FLAT, _one_pick_budget(request_cost(10, 3)), HOUR)
    assert [(p.prefix.prefix, p.reason) for p in found.picks] == [("10.2", NEVER_SAMPLED)]


def test_a_prefix_whose_domain_changed_gets_more_dois_than_an_unchanged_one():
    moved = _prefix("10.1", dois=500, days_ago=2, signals={DOMAIN_CHANGED})
    same = _prefix("10.2", dois=500, days_ago=8)
    found = {p.prefix.prefix: p.dois for p in plan([moved, same], NOW, FLAT, PLENTY, HOUR).picks}
    assert found == {"10.1": 30, "10.2": 10}


def test_a_signalled_prefix_is_picked_before_a_staler_unsignalled_one():
    failing = _prefix("10.1", days_ago=2, signals={FAILING})
    stale = _prefix("10.2", days_ago=20)
    found = plan([stale, failing], NOW, FLAT, _one_pick_budget(request_cost(30, 3)), HOUR)
    assert [(p.prefix.prefix, p.reason) for p in found.picks] == [("10.1", SIGNALLED)]


def test_a_signalled_prefix_sampled_within_its_recheck_days_is_not_sampled_again_yet():
    just_seen = _prefix("10.1", days_ago=0.5, signals={META_TAGS_CHANGED})
    others = [_prefix(f"10.{i}", days_ago=3) for i in range(2, 50)]
    found = plan([just_seen, *others], NOW, FLAT, PLENTY, HOUR)
    assert "10.1" not in {p.prefix.prefix for p in found.picks}


def test_the_most_stale_prefixes_are_refreshed_first():
    known = [_prefix(f"10.{days}", days_ago=days) for days in (1, 9, 3, 12, 8)]
    found = plan(known, NOW, FLAT, _one_pick_budget(2 * request_cost(10, 3)), HOUR)
    assert [(p.prefix.prefix, p.reason) for p in found.picks] == [("10.12", STALE), ("10.9", STALE)]


def test_over_budget_is_reported_with_the_days_the_budget_can_keep():
    known = [_prefix(f"10.{i}", dois=50, days_ago=1) for i in range(70)]  # 70 prefixes of 10 DOIs: 2,170 requests
    found = plan(known, NOW, FLAT, Budget(requests_per_day=155, requests_per_doi=3), HOUR)
    assert (found.within, found.keeps_days, round(found.needed_per_day, 2)) == (False, 14.0, 361.67)


def test_a_budget_that_refreshes_everything_by_the_target_age_is_reported_within():
    known = [_prefix(f"10.{i}", dois=50, days_ago=1) for i in range(70)]
    found = plan(known, NOW, FLAT, Budget(requests_per_day=434, requests_per_doi=3), HOUR)
    assert (found.within, found.keeps_days) == (True, 5.0)


def test_a_prefix_younger_than_its_target_age_is_not_sampled_even_with_budget_to_spare():
    found = plan([_prefix("10.1", days_ago=2.9), _prefix("10.2", days_ago=6)], NOW, FLAT, PLENTY, HOUR)
    assert [p.prefix.prefix for p in found.picks] == ["10.2"]


def test_prefixes_sampled_together_come_back_a_few_each_slice_before_their_target_age():
    # 144 prefixes sampled together an hour ago, target age 6 days (144 hours): an even spread would have refreshed
    # one by now, so one comes back (the stalest, then by name), rather than all 144 at 144 hours.
    known = [_prefix(f"10.{n:03d}", days_ago=1 / 24) for n in range(144)]
    found = plan(known, NOW, FLAT, PLENTY, HOUR)
    assert [(p.prefix.prefix, p.reason) for p in found.picks] == [("10.000", "stale")]


def test_half_of_prefixes_sampled_together_come_back_by_half_their_target_age():
    known = {n: _prefix(f"10.{n:03d}", days_ago=1 / 24) for n in range(144)}
    for hour in range(72):
        at = NOW + hour * HOUR
        for pick in plan(known.values(), at, FLAT, PLENTY, HOUR).picks:
            known[int(pick.prefix.prefix[3:])] = replace(pick.prefix, sampled=at)
    assert sum(p.sampled >= NOW for p in known.values()) == 72


def test_a_pick_larger_than_a_slice_is_taken_and_the_next_slices_pay_its_overdraft_back():
    known = {"10.1": _prefix("10.1", dois=100), "10.2": _prefix("10.2", dois=10)}  # 301 and 31 requests
    budget = Budget(requests_per_day=24 * 100, requests_per_doi=3)  # 100 requests an hour
    carry, seen = 0.0, []
    for hour in range(4):
        found = plan(known.values(), NOW + hour * HOUR, POLICY, budget, HOUR, carry)
        for pick in found.picks:
            known[pick.prefix.prefix] = replace(pick.prefix, sampled=NOW + hour * HOUR)
        carry = found.carry
        seen.append(([p.prefix.prefix for p in found.picks], carry))
    assert seen == [(["10.1"], -201.0), ([], -101.0), ([], -1.0), (["10.2"], 0.0)]


def test_a_refresh_of_zero_days_is_refused_with_a_message():
    with pytest.raises(ValueError, match="refresh_days must be more than 0, not 0"):
        plan([_prefix("10.1")], NOW, replace(POLICY, refresh_days=0), PLENTY, HOUR)


def _visit(doi, domain, error=None, correctness="ok", driver="http"):
    return {
        "pid/doi": doi,
        "snapshot/driver": driver,
        "snapshot/final-url-domain": domain,
        "snapshot/error": error,
        "snapshot/timestamp": "2026-11-20T08:00:00Z",
        "analysis/meta-tag-correctness": correctness,
    }


EARLIER = [_visit("10.1/a", "old.example"), _visit("10.1/b", "old.example")]


def test_a_visit_to_a_domain_no_earlier_visit_reached_signals_a_domain_change():
    assert signals(EARLIER, [_visit("10.1/c", "old.example"), _visit("10.1/d", "new.example")]) == {DOMAIN_CHANGED}


def test_a_sample_mostly_failing_where_it_mostly_reached_pages_signals_failing():
    latest = [_visit("10.1/c", "old.example", "http-5xx", None), _visit("10.1/d", "old.example", "timeout", None)]
    assert signals(EARLIER, latest) == {FAILING}


def test_a_prefix_whose_usual_meta_tag_correctness_changed_signals_it():
    assert signals(EARLIER, [_visit("10.1/c", "old.example", correctness="incorrect")]) == {META_TAGS_CHANGED}


def test_a_share_of_correct_pages_fallen_on_too_few_pages_to_tell_signals_a_deeper_sample():
    latest = [_visit(f"10.1/n{n}", "old.example") for n in range(8)] + [
        _visit("10.1/m", "old.example", correctness="missing")
    ]
    assert signals(EARLIER, latest) == {SHARE_FELL}


def test_a_share_of_correct_pages_fallen_on_enough_pages_is_the_alerts_to_judge_not_a_signal():
    latest = [_visit(f"10.1/n{n}", "old.example") for n in range(18)] + [
        _visit(f"10.1/m{n}", "old.example", correctness="missing") for n in range(2)
    ]
    assert signals(EARLIER, latest) == frozenset()


def test_a_signalled_share_fall_samples_the_prefix_deeper():
    policy = Policy(refresh_days=30, recheck_days=1, sample_min=10, sample_max=100, changed_dois=30)
    fallen = Prefix("crossref", "340", "10.1371", 300_000, signals=frozenset({SHARE_FELL}))
    assert depth(fallen, 20_000_000, policy) == 30


def test_a_doi_that_needed_the_browser_and_reached_its_page_is_not_a_failure():
    latest = [
        _visit("10.1/c", "old.example", "js-required", None, "http"),
        _visit("10.1/c", "old.example", driver="browser"),
    ]
    assert signals(EARLIER, latest) == frozenset()


def test_ages_count_never_sampled_prefixes_apart():
    assert ages([_prefix("10.1"), _prefix("10.2", days_ago=3)], NOW) == {"p50": 3.0, "p95": 3.0, "max": 3.0, "never": 1}


@functools.cache  # two tests read the same simulated 90 days
def _simulate(slack, days=90, seed=7):
    """A world of 300 prefixes (long-tailed sizes), 5 new ones a week, 1% of the sampled ones moving a day, planned
    hourly on a budget of `slack` times what the final world needs. A moved prefix's next sample signals the move,
    the one after clears it. Returns each slice's plan, the max age (days) at each slice's end, the requests spent
    each day, and the budget."""
    rng = random.Random(seed)

    def size():
        return int(rng.paretovariate(1.2) * 40)

    known = {f"10.{1000 + i}": Prefix("crossref", str(i), f"10.{1000 + i}", size()) for i in range(300)}
    weekly = {h: [f"10.{90000 + h + i}" for i in range(5)] for h in range(7 * 24, days * 24, 7 * 24)}
    later = {name: Prefix("crossref", name, name, size()) for names in weekly.values() for name in names}
    need = plan([*known.values(), *later.values()], NOW, POLICY, Budget(1, 3), HOUR).needed_per_day
    budget = Budget(requests_per_day=math.ceil(need * slack), requests_per_doi=3)
    moved: set[str] = set()
    plans, max_age, per_day, carry = [], [], [0.0] * days, 0.0
    for hour in range(days * 24):
        now = NOW + hour * HOUR
        known.update({name: later[name] for name in weekly.get(hour, ())})
        if hour % 24 == 0 and hour:
            sampled = sorted(name for name, p in known.items() if p.sampled is not None)
            moved.update(rng.sample(sampled, k=len(sampled) // 100))
        found = plan(known.values(), now, POLICY, budget, HOUR, carry)
        carry = found.carry
        for pick in found.picks:
            name = pick.prefix.prefix
            noticed = frozenset({DOMAIN_CHANGED}) if name in moved else frozenset()
            moved.discard(name)
            known[name] = replace(pick.prefix, sampled=now, signals=noticed)
        plans.append(found)
        per_day[hour // 24] += found.requests
        max_age.append(ages(known.values(), now + HOUR)["max"])
    return plans, max_age, per_day, budget


def test_with_enough_budget_no_prefix_exceeds_refresh_days_over_90_simulated_days():
    plans, max_age, _, _ = _simulate(slack=1.1)
    assert all(found.within for found in plans)
    assert max(age for age in max_age if age is not None) <= POLICY.refresh_days


def test_requests_stay_within_the_daily_budget_over_90_simulated_days():
    plans, _, per_day, budget = _simulate(slack=1.1)
    largest = max(pick.requests for found in plans for pick in found.picks)
    assert max(per_day) <= budget.requests_per_day + largest
    assert sum(per_day) <= budget.requests_per_day * len(per_day)


def test_a_short_budget_lets_prefixes_age_past_refresh_days_and_says_so():
    plans, max_age, _, _ = _simulate(slack=0.9, days=30)
    assert not plans[-1].within and max(age for age in max_age if age is not None) > POLICY.refresh_days


def _rounds_while_refreshes_stay_open(open_hours: int, days: int = 30) -> list[int]:
    """Refreshes of 300 prefixes planned hourly as the continuous planner plans them: a prefix whose refresh is under
    way (for `open_hours`) is left out of the plan, and counted as refreshing. Each prefix's refreshes in `days`."""
    rng = random.Random(3)
    known = {f"10.{1000 + i}": _prefix(f"10.{1000 + i}", dois=10 + rng.randrange(500)) for i in range(300)}
    closes: dict[str, tuple[int, datetime]] = {}  # prefix -> (hour its round closes, when it was planned)
    picks = dict.fromkeys(known, 0)
    for hour in range(days * 24):
        now = NOW + hour * HOUR
        for name, (hour_closed, planned) in list(closes.items()):
            if hour_closed <= hour:
                known[name] = replace(known[name], sampled=planned)
                del closes[name]
        free = [p for name, p in known.items() if name not in closes]
        for pick in plan(free, now, POLICY, PLENTY, HOUR, refreshing=len(closes)).picks:
            picks[pick.prefix.prefix] += 1
            closes[pick.prefix.prefix] = (hour + open_hours, now)
    return list(picks.values())


@pytest.mark.parametrize("open_hours", [1, 24])
def test_refreshes_that_stay_open_are_paced_as_often_as_the_target_age_and_no_more(open_hours):
    # The first sample, then one refresh every target age (6 days) at most: the first ones are spread over it.
    assert sorted(set(_rounds_while_refreshes_stay_open(open_hours))) == [6, 7]
