"""Shared fixtures: generated worlds and a running sandbox server on a free port; how `make test` spreads the suite
over pytest-xdist's workers."""

import os
from contextlib import closing
from functools import partial

import pytest

# Scrapy builds deprecated classes as it imports its TLS modules, each call reading every frame on the stack with its
# source (inspect.stack()): imported here, first, that stack is short and few modules are loaded; imported under a
# test module's collection it cost each worker about a CPU-second.
import scrapy.core.downloader.contextfactory  # noqa: F401

from landing_dev.sandbox.generator import generate
from landing_dev.sandbox.server import RunningSandbox
from tests.redis_server import running_redis
from tests.sampler.crawling import Stores, at_once


@pytest.fixture(scope="session")
def mixed_world(tmp_path_factory):
    """A 1,000-DOI world with the realistic scenario mix."""
    directory = tmp_path_factory.mktemp("mixed")
    generate(directory, 1000, seed=7)
    return directory


@pytest.fixture(scope="session")
def every_scenario_world(tmp_path_factory):
    """A world whose DOIs take every scenario in turn (8 DOIs each)."""
    from landing_dev.sandbox import scenarios

    directory = tmp_path_factory.mktemp("every")
    generate(directory, 8 * len(scenarios.ALL), seed=11, only=list(scenarios.ALL))
    return directory


@pytest.fixture(scope="session")
def mixed_sandbox(mixed_world):
    """The mixed world served; `requests` lists every request it answered ("GET url -> status")."""
    requests = []
    running = RunningSandbox(mixed_world, log=requests.append)
    running.requests = requests
    yield running
    running.close()


@pytest.fixture(scope="session")
def every_sandbox(every_scenario_world):
    """The every-scenario world served; `seen` holds every request it answered, headers included."""
    seen = []
    running = RunningSandbox(every_scenario_world, watch=seen.append)
    running.seen = seen
    yield running
    running.close()


# Crawls shared by the sampler's integration tests and the commands' tests: each world is crawled once, and the
# crawls this session uses all start when the first is asked for: a crawl spends much of its time waiting (its process
# starting, each host's pace, its tail of few hosts), so they take less together than one after the other.
@pytest.fixture(scope="session")
def shared_crawls(request, tmp_path_factory):
    """{name in CRAWLS: a future of its (stores, crawl output)}, for the crawls some test of this session uses."""
    with at_once(request, {name: partial(start, request, tmp_path_factory) for name, start in CRAWLING.items()}) as f:
        yield f


def _mixed(request, tmp_path_factory):
    """Through a sandbox of its own, whose log holds this crawl's requests only, whatever else runs meanwhile."""
    world, stores = request.getfixturevalue("mixed_world"), Stores(tmp_path_factory.mktemp("mixed-crawl"))
    stores.requests = []  # what this crawl asked of the sandbox, in order

    def crawl():
        with closing(RunningSandbox(world, log=stores.requests.append)) as sandbox:
            return stores, stores.crawl(sandbox.proxy)

    return crawl


def _through(sandbox: str, name: str):
    def start(request, tmp_path_factory):
        proxy, stores = request.getfixturevalue(sandbox).proxy, Stores(tmp_path_factory.mktemp(name))
        return lambda: (stores, stores.crawl(proxy))

    return start


CRAWLING = {
    "mixed_crawl": _mixed,
    "every_crawl": _through("every_sandbox", "every-crawl"),
    "match_crawl": _through("match_sandbox", "match-crawl"),
}


@pytest.fixture(scope="session")
def mixed_crawl(shared_crawls):
    """The 1,000-DOI mixed world crawled once; (stores, crawl output); `stores.requests` lists what it asked of the
    sandbox ("GET url -> status"), in order."""
    return shared_crawls["mixed_crawl"].result()


@pytest.fixture(scope="session")
def every_crawl(shared_crawls):
    """The every-scenario world crawled once, through `every_sandbox`; (stores, crawl output)."""
    return shared_crawls["every_crawl"].result()


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


MATCH_SCENARIOS = ["direct", "text-only", "placeholder-doi", "meta-missing", "link-only", "reference-trap"]


@pytest.fixture(scope="session")
def match_world(tmp_path_factory):
    """Pages of every kind the matcher reads (seed 2: PIIs, shortDOIs, DOIs in and out of URLs)."""
    directory = tmp_path_factory.mktemp("match")
    generate(directory, 300, seed=2, only=MATCH_SCENARIOS)
    return directory


@pytest.fixture(scope="session")
def match_sandbox(match_world):
    running = RunningSandbox(match_world)
    yield running
    running.close()


@pytest.fixture(scope="session")
def match_crawl(shared_crawls):
    """The match world crawled once, through `match_sandbox`: its store and the artifacts the matcher verifies
    against."""
    return shared_crawls["match_crawl"].result()


@pytest.fixture(scope="session")
def redis_server(tmp_path_factory):
    """A redis-server for the shared-frontier tests (skipped where Debian's is not installed); yields its URL."""
    with running_redis(tmp_path_factory.mktemp("redis")) as url:
        yield url


@pytest.fixture
def flushed_redis(redis_server):
    """A client of `redis_server`, emptied first."""
    import redis

    client = redis.Redis.from_url(redis_server)
    client.flushall()
    yield client
    client.close()


# Under pytest-xdist (`make test`: a worker more than cores, `--dist loadgroup`) a group is what one worker runs. A
# module is one group, so its module fixtures are set up once; the modules sharing a session crawl are one group, so
# each world is crawled once per run, not once per worker.
CRAWLS = set(CRAWLING)
# The longest groups start first and the short ones come last, so that both workers end together: xdist hands a
# worker its next group while the worker still has two tests to run, so a long group handed out late can leave the
# other worker idle for all of it. Every group of more than a few seconds is listed, longest first (a full run's
# `--durations=0` and CPU per group, bench/README.md "The suite's time"); each group keeps its own order.
LONGEST = (
    "crawls",
    "tests/sampler/test_outages.py",  # an outage waited out: idle, so its worker's core serves the others
    "tests/sampler/test_crawl_to_elastic.py",
    "tests/test_demo.py",
    "tests/sampler/test_shared_outages.py",
    "tests/sampler/test_resume.py",
    "tests/browser/test_driver_crawl.py",
    "tests/report/test_html.py",
    "tests/sampler/test_shared_frontier.py",
    "tests/sampler/test_crawl_to_s3.py",
    "tests/test_scrapyd.py",
    "tests/sandbox/test_world.py",
    "tests/sampler/test_continuous_planner_shared.py",
    "tests/match/test_vectors.py",
    "tests/match/test_limits.py",
    "tests/browser/test_driver.py",
    "tests/publish/test_alert_crawl.py",
    "tests/browser/test_forward_proxy_chromium.py",
    "tests/commands/test_crawl.py",
    "tests/sampler/test_bad_answers.py",
    "tests/sampler/test_continuous_planner.py",
    "tests/match/test_hostile.py",
    "tests/browser/test_rules.py",
    "tests/test_runner.py",
    "tests/sampler/test_stop.py",
    "tests/match/test_api.py",
    "tests/serve/test_command.py",
    "tests/crawl/test_stopping.py",
    "tests/artifacts/test_moved.py",
    "tests/commands/test_artifacts.py",
    "tests/sampler/test_invalid_host.py",
    "tests/sampler/test_hostile.py",
    "tests/sandbox/test_truth_walk.py",
    "tests/match/test_meta_forms.py",
    "tests/commands/test_load.py",
    "tests/stores/test_blob_store_contract.py",
    "tests/test_worker_groups.py",
    "tests/commands/test_prune.py",
    "tests/commands/test_match.py",
    "tests/publish/test_publish.py",
    "tests/core/continuous/test_freshness.py",
)


def worker_groups(items) -> dict:
    """{item: its xdist group}: its module, or "crawls" for every module where a test uses a shared crawl."""
    crawled = {item.path for item in items if CRAWLS & set(getattr(item, "fixturenames", ()))}
    return {item: "crawls" if item.path in crawled else item.nodeid.split("::")[0] for item in items}


@pytest.hookimpl(tryfirst=True)  # before xdist's own, which reads the groups
def pytest_collection_modifyitems(config, items):
    if "PYTEST_XDIST_WORKER" not in os.environ:
        return  # a run without workers keeps pytest's order
    groups = worker_groups(items)
    for item in items:
        item.add_marker(pytest.mark.xdist_group(groups[item]))
    first = {group: rank for rank, group in enumerate(LONGEST)}
    items.sort(key=lambda item: first.get(groups[item], len(LONGEST)))  # stable: each module keeps its order
