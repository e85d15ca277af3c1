"""Crawls shared by the sampler's integration tests: each world is crawled once per session."""
import pytest

from landing.sandbox.generator import generate
from tests.conftest import RunningSandbox
from tests.spiders.crawling import Stores


@pytest.fixture(scope="session")
def mixed_crawl(mixed_world, mixed_sandbox, tmp_path_factory):
    """The 1,000-DOI mixed world crawled once; (stores, crawl output)."""
    stores = Stores(tmp_path_factory.mktemp("mixed-crawl"))
    return stores, stores.crawl(mixed_sandbox.proxy)


@pytest.fixture(scope="session")
def every_crawl(every_scenario_world, every_sandbox, tmp_path_factory):
    """The every-scenario world crawled once; (stores, crawl output)."""
    stores = Stores(tmp_path_factory.mktemp("every-crawl"))
    return stores, stores.crawl(every_sandbox.proxy)


@pytest.fixture(scope="session")
def small_world(tmp_path_factory):
    """A second, different world (other seed): for additivity across worlds."""
    directory = tmp_path_factory.mktemp("small")
    generate(directory, 150, seed=5)
    return directory


@pytest.fixture(scope="session")
def small_sandbox(small_world):
    running = RunningSandbox(small_world)
    yield running
    running.close()
