"""A continuous leader's close (landing.sampler.leading.SharedLead) against a real redis-server: it hands its lead over
when the lead is still its own, and says so when another worker took it first."""

import logging
from types import SimpleNamespace

import pytest
from scrapy.utils.test import get_crawler

from landing.sampler.lead_election import FOLLOWING, TAKEN, SharedRun
from landing.sampler.leading import SharedLead

KEY = "doi_sampler:requests"
LOGGER = logging.getLogger("test_leading")


@pytest.fixture
def server(flushed_redis):
    return flushed_redis


def _leader(server) -> tuple[SharedLead, SharedRun]:
    """A continuous planner's SharedLead that has taken the lead of KEY's run."""
    lead = SharedLead(SimpleNamespace(leading=True, hands_over=True), get_crawler(), LOGGER)
    lead.shared = SharedRun(server, KEY, 60)
    assert lead.shared.lead() == TAKEN
    return lead, lead.shared


def test_a_stopping_leader_hands_the_lead_over_to_the_next_worker_to_ask(server, caplog):
    lead, _ = _leader(server)
    with caplog.at_level(logging.INFO, logger=LOGGER.name):
        lead._closed()
    assert "Handing the lead of the continuous run over" in caplog.text
    assert SharedRun(server, KEY, 60).lead() == TAKEN


def test_a_stopping_leader_whose_lead_another_worker_took_says_it_had_nothing_to_hand_over(server, caplog):
    lead, _ = _leader(server)
    server.delete(f"{KEY}:leader")  # its lease ran out
    other = SharedRun(server, KEY, 60)
    assert other.lead() == TAKEN
    with caplog.at_level(logging.INFO, logger=LOGGER.name):
        lead._closed()
    assert "Handing the lead" not in caplog.text
    assert "was no longer this worker's when it stopped" in caplog.text
    assert SharedRun(server, KEY, 60).lead() == FOLLOWING  # the other worker keeps it


def test_a_leader_still_holding_its_lease_holds_the_lead_and_renews_it(server):
    lead, _ = _leader(server)
    server.pexpire(f"{KEY}:leader", 1000)  # most of its lease gone
    assert (lead.holds(), server.pttl(f"{KEY}:leader") > 1000) == (True, True)


def test_a_leader_whose_lease_another_worker_took_holds_nothing_and_stops_leading(server):
    lead, _ = _leader(server)
    server.delete(f"{KEY}:leader")  # starved past its lease
    assert SharedRun(server, KEY, 60).lead() == TAKEN
    assert (lead.holds(), lead.leading, lead.crawler.stats.get_value("landing/frontier_redis/lost_lead")) == (
        False,
        False,
        1,
    )
