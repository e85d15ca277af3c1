"""The lead of a shared run (landing.sampler.lead_election) against a real redis-server, and the per-host split."""

import pytest
from scrapy.settings import Settings

from landing import settings as defaults
from landing.config import of_settings
from landing.sampler.lead_election import FOLLOWING, OVER, RENEWED, TAKEN, SharedRun, share_hosts

KEY = "doi_sampler:requests"


@pytest.fixture
def server(flushed_redis):
    return flushed_redis


def test_the_first_worker_takes_the_lead_and_the_second_follows(server):
    a, b = SharedRun(server, KEY, 60), SharedRun(server, KEY, 60)
    assert a.lead() == TAKEN
    assert b.lead() == FOLLOWING
    assert a.lead() == RENEWED


def test_a_follower_reads_the_run_the_leader_published(server):
    a, b = SharedRun(server, KEY, 60), SharedRun(server, KEY, 60)
    a.lead()
    b.lead()
    assert b.published() == ""
    a.publish("2026-11-24T00:00:00Z")
    assert b.published() == "2026-11-24T00:00:00Z"


def test_a_follower_learns_the_run_is_over_once_the_leader_ends_it(server):
    a, b = SharedRun(server, KEY, 60), SharedRun(server, KEY, 60)
    a.lead()
    b.lead()
    assert a.end()
    assert b.lead() == OVER


def test_a_worker_that_comes_after_an_ended_run_leads_the_next_one(server):
    a = SharedRun(server, KEY, 60)
    a.lead()
    a.end()
    late = SharedRun(server, KEY, 60)
    assert late.lead() == TAKEN
    assert late.inherited == ""  # an ended leadership hands over no run: LANDING_RUN decides


def test_a_worker_takes_over_the_run_of_a_leader_whose_lock_expired(server):
    a, b = SharedRun(server, KEY, 60), SharedRun(server, KEY, 60)
    a.lead()
    a.publish("2026-11-23T10:00:00Z")
    assert b.lead() == FOLLOWING
    server.delete(f"{KEY}:leader")  # what the lock's expiry does once a dead leader stops renewing
    assert b.lead() == TAKEN
    assert b.inherited == "2026-11-23T10:00:00Z"
    assert a.lead() == FOLLOWING  # the old leader, were it alive, finds it has lost the lead
    assert not a.end()  # and cannot end the new leader's run


def test_a_released_lead_goes_at_once_to_the_next_worker_with_the_run_to_resume(server):
    a, b = SharedRun(server, KEY, 60), SharedRun(server, KEY, 60)
    a.lead()
    a.publish("continuous")
    assert b.lead() == FOLLOWING
    assert a.release()
    assert b.lead() == TAKEN
    assert b.inherited == "continuous"
    assert not a.release()  # no longer its lock: the new leader keeps it
    assert b.lead() == RENEWED


def test_a_worker_that_comes_after_a_released_lead_resumes_the_run(server):
    a = SharedRun(server, KEY, 60)
    a.lead()
    a.publish("continuous")
    a.release()
    late = SharedRun(server, KEY, 60)
    assert late.lead() == TAKEN
    assert late.inherited == "continuous"


def test_the_lead_expires_after_the_lease_seconds(server):
    a = SharedRun(server, KEY, 60)
    a.lead()
    assert 0 < server.pttl(f"{KEY}:leader") <= 60_000


def test_a_leader_whose_lock_vanished_with_the_data_takes_it_back_as_a_renewal(server):
    a, b = SharedRun(server, KEY, 60), SharedRun(server, KEY, 60)
    a.lead()
    a.publish("2026-11-23T10:00:00Z")
    b.lead()
    server.flushall()  # what a Redis restarted without persistence does
    assert a.lead() == RENEWED
    assert b.published() == "2026-11-23T10:00:00Z"
    assert b.lead() == FOLLOWING
    assert a.end()
    assert b.lead() == OVER


def test_after_the_data_is_lost_a_follower_leaves_the_lead_to_the_leader_for_a_lease(server):
    a, b = SharedRun(server, KEY, 60), SharedRun(server, KEY, 60)
    a.lead()
    b.lead()
    server.flushall()
    assert b.lead() == FOLLOWING
    assert a.lead() == RENEWED


def test_after_the_data_is_lost_a_follower_takes_the_lead_once_a_lease_passed_without_the_leader(server):
    a, b = SharedRun(server, KEY, 60), SharedRun(server, KEY, 60)
    a.lead()
    a.publish("2026-11-23T10:00:00Z")
    b.lead()
    server.flushall()
    now = 1000.0
    b.clock = lambda: now
    assert b.lead() == FOLLOWING
    now += 60
    assert b.lead() == TAKEN
    assert b.inherited == ""  # the record is gone: LANDING_RUN finds the run in the store
    assert a.lead() == FOLLOWING


def _settings(**values):
    settings = Settings()
    settings.setmodule(defaults, priority="project")
    settings.setdict(values, priority="cmdline")
    return settings


def test_two_workers_each_take_half_of_the_per_host_limits_and_the_resolver_slot_and_rate():
    settings = _settings(LANDING_WORKERS=2)
    share_hosts(settings, of_settings(settings))
    assert settings.getint("CONCURRENT_REQUESTS_PER_DOMAIN") == 2
    assert settings.getfloat("AUTOTHROTTLE_TARGET_CONCURRENCY") == 1.0
    assert settings.getdict("DOWNLOAD_SLOTS")["doi.org"]["concurrency"] == 16
    assert of_settings(_settings(LANDING_WORKERS=2, LANDING_FRONTIER_REDIS="redis://r:6379/0")).resolver_rate == 50.0


def test_the_api_slots_are_not_split_since_only_the_leader_asks_them():
    settings = _settings(LANDING_WORKERS=4)
    share_hosts(settings, of_settings(settings))
    assert settings.getdict("DOWNLOAD_SLOTS")["api.crossref.org"] == defaults.DOWNLOAD_SLOTS["api.crossref.org"]


def test_a_split_never_goes_below_one_connection_per_host():
    settings = _settings(LANDING_WORKERS=16)
    share_hosts(settings, of_settings(settings))
    assert settings.getint("CONCURRENT_REQUESTS_PER_DOMAIN") == 1
    assert settings.getfloat("AUTOTHROTTLE_TARGET_CONCURRENCY") == 1.0


def test_one_worker_keeps_the_limits_as_they_are():
    settings = _settings(LANDING_WORKERS=1)
    share_hosts(settings, of_settings(settings))
    assert settings.getint("CONCURRENT_REQUESTS_PER_DOMAIN") == defaults.CONCURRENT_REQUESTS_PER_DOMAIN
    assert settings.getdict("DOWNLOAD_SLOTS") == defaults.DOWNLOAD_SLOTS
