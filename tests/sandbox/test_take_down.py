"""landing_dev.sandbox.server: a host taken down for some real seconds (take_down), whatever the world's clock."""

import pytest

from landing_dev.sandbox.server import RunningSandbox
from tests.sandbox.client import get


@pytest.fixture
def sandbox(mixed_world):
    running = RunningSandbox(mixed_world)
    yield running
    running.close()


@pytest.fixture
def doi(mixed_dois):
    return mixed_dois[0]["doi"]


def test_a_resolver_taken_down_refuses_its_connect(sandbox, doi):
    sandbox.take_down("doi.org", 3600)
    with pytest.raises(OSError, match="502"):
        get(sandbox.proxy, f"https://doi.org/{doi}")


def test_a_resolver_whose_outage_ended_answers_again(sandbox, doi):
    sandbox.take_down("doi.org", 3600)
    sandbox.take_down("doi.org", 0)
    assert get(sandbox.proxy, f"https://doi.org/{doi}").status == 302


def test_a_host_taken_down_with_503_answers_503(sandbox):
    sandbox.take_down("api.crossref.org", 3600, how="503")
    assert get(sandbox.proxy, "http://api.crossref.org/members").status == 503


def test_taking_one_host_down_leaves_the_others_up(sandbox):
    sandbox.take_down("api.datacite.org", 3600)
    assert get(sandbox.proxy, "http://api.crossref.org/members").status == 200
