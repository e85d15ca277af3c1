"""landing.core.web.backoff: a failing host's pauses (doubled per failed probe, capped, jittered) and how long its
requests are retried."""

import pytest

from landing.core.web.backoff import Outage, Schedule, draws

SCHEDULE = Schedule(base=1.0, cap=60.0, outage_max=300.0)


def test_each_failed_try_doubles_the_pause_up_to_the_cap():
    assert [SCHEDULE.pause(streak, draw=1.0) for streak in (1, 2, 3, 6, 7, 8, 500)] == [1, 2, 4, 32, 60, 60, 60]


@pytest.mark.parametrize("draw", [0.0, 0.3, 0.99])
def test_the_jitter_keeps_a_pause_between_half_and_all_of_its_length(draw):
    assert 2.0 <= SCHEDULE.pause(3, draw) <= 4.0


def test_the_pauses_of_a_minute_long_outage_add_up_to_more_than_the_minute_at_the_least_jitter():
    assert sum(SCHEDULE.pause(streak, draw=0.0) for streak in range(1, 8)) > 60


def test_seeded_draws_repeat_and_lie_in_the_unit_interval():
    first, again = draws(3), draws(3)
    taken = [next(first) for _ in range(100)]
    assert taken == [next(again) for _ in range(100)] and all(0 <= d < 1 for d in taken)


def test_a_first_failure_begins_an_outage_of_one_pause():
    outage = Outage.begin("https://a.example/1", now=10.0, draw=1.0, schedule=SCHEDULE)
    assert (outage.since, outage.until, outage.streak, outage.widespread) == (10.0, 11.0, 1, False)


def test_failures_of_two_urls_make_the_outage_widespread():
    outage = Outage.begin("https://a.example/1", now=0.0, draw=1.0, schedule=SCHEDULE)
    outage = outage.failed("https://a.example/2", now=0.1, draw=1.0, schedule=SCHEDULE, probe=False)
    assert outage.widespread


def test_the_same_url_failing_again_is_not_widespread():
    outage = Outage.begin("https://a.example/1", now=0.0, draw=1.0, schedule=SCHEDULE)
    outage = outage.failed("https://a.example/1", now=2.0, draw=1.0, schedule=SCHEDULE, probe=True)
    assert (outage.widespread, outage.streak) == (False, 2)


def test_a_failed_probe_pauses_twice_as_long_from_its_failure():
    outage = Outage.begin("https://a.example/1", now=0.0, draw=1.0, schedule=SCHEDULE).probing(1.0, hold=90.0)
    outage = outage.failed("https://a.example/1", now=1.5, draw=1.0, schedule=SCHEDULE, probe=True)
    assert (outage.until, outage.probe, outage.since) == (3.5, False, 0.0)


def test_while_the_probe_is_out_the_others_wait_for_it_at_most_the_hold():
    outage = Outage.begin("https://a.example/1", now=0.0, draw=1.0, schedule=SCHEDULE).probing(1.0, hold=90.0)
    assert (outage.wait(1.0), outage.wait(91.0)) == (90.0, 0.0)


def test_a_probe_that_ended_otherwise_lets_another_go_at_once():
    outage = Outage.begin("https://a.example/1", now=0.0, draw=1.0, schedule=SCHEDULE).probing(1.0, hold=90.0)
    assert outage.released(5.0).wait(5.0) == 0.0


def test_retry_after_lengthens_a_pause_and_never_shortens_it():
    outage = Outage.begin("https://a.example/1", now=0.0, draw=1.0, schedule=SCHEDULE)
    assert (outage.asked(0.0, 30.0).until, outage.asked(0.0, 0.2).until) == (30.0, 1.0)


def test_a_request_keeps_its_own_tries_whatever_the_outage():
    outage = Outage.begin("https://a.example/1", now=0.0, draw=1.0, schedule=SCHEDULE)
    assert (SCHEDULE.retries(1, 2, outage, now=0.0), SCHEDULE.retries(2, 2, outage, now=0.0)) == (True, False)


def test_a_widespread_outage_is_retried_past_the_tries_until_outage_max():
    outage = Outage.begin("https://a.example/1", now=0.0, draw=1.0, schedule=SCHEDULE)
    outage = outage.failed("https://a.example/2", now=0.0, draw=1.0, schedule=SCHEDULE, probe=False)
    assert (SCHEDULE.retries(9, 2, outage, now=299.0), SCHEDULE.retries(9, 2, outage, now=300.0)) == (True, False)


def test_failures_that_do_not_say_the_host_is_down_never_make_the_outage_widespread():
    outage = Outage.begin("https://a.example/1", now=0.0, draw=1.0, schedule=SCHEDULE, down=False)
    outage = outage.failed("https://a.example/2", now=0.1, draw=1.0, schedule=SCHEDULE, probe=False, down=False)
    assert (outage.widespread, outage.until) == (False, 1.0)
