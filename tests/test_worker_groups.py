"""How tests/conftest.py spreads the suite over pytest-xdist's workers (`make test`), and how a worker runs crawls at once
(`tests.sampler.crawling.at_once`)."""

import subprocess
import sys
import textwrap
from pathlib import Path

from tests.conftest import CRAWLS, LONGEST

PROJECT = Path(__file__).resolve().parents[1]

INNER_CONFTEST = """
import os

import pytest

from tests.conftest import pytest_collection_modifyitems  # noqa: F401  (the hook under test)


@pytest.fixture(scope="session")
def every_crawl(tmp_path_factory):
    with open(os.environ["CRAWLS_LOG"], "a") as log:
        log.write(os.environ["PYTEST_XDIST_WORKER"] + "\\n")


@pytest.fixture(scope="module")
def module_setup(request):
    with open(os.environ["MODULES_LOG"], "a") as log:
        log.write(request.module.__name__ + "\\n")
"""


def test_every_longest_group_names_a_test_module_or_the_shared_crawls():
    missing = [group for group in LONGEST if group != "crawls" and not (PROJECT / group).is_file()]
    assert missing == []
    assert CRAWLS == {"mixed_crawl", "every_crawl", "match_crawl"}


def test_on_two_workers_a_shared_crawl_and_each_module_fixture_are_set_up_once(tmp_path):
    suite = tmp_path / "suite"
    suite.mkdir()
    (suite / "conftest.py").write_text(INNER_CONFTEST)
    for n in range(3):  # modules sharing the crawl, each test of them on its own would be a unit of its own
        (suite / f"test_crawled_{n}.py").write_text(
            "".join(f"def test_{k}(every_crawl, module_setup):\n    pass\n\n\n" for k in range(4))
        )
    for n in range(3):
        (suite / f"test_plain_{n}.py").write_text(
            "".join(f"def test_{k}(module_setup):\n    pass\n\n\n" for k in range(4))
        )
    crawls, modules = tmp_path / "crawls.log", tmp_path / "modules.log"
    env = {"PYTHONPATH": str(PROJECT), "CRAWLS_LOG": str(crawls), "MODULES_LOG": str(modules), "PATH": "/usr/bin"}
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "2", "--dist", "loadgroup"]
        + ["--no-loadscope-reorder", str(suite)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert done.returncode == 0, textwrap.shorten(done.stdout + done.stderr, 3000)
    assert "24 passed" in done.stdout
    assert len(crawls.read_text().splitlines()) == 1
    assert sorted(modules.read_text().splitlines()) == sorted(
        [f"test_crawled_{n}" for n in range(3)] + [f"test_plain_{n}" for n in range(3)]
    )


AT_ONCE_CONFTEST = """
import os
import threading

import pytest

from tests.sampler.crawling import at_once

BOTH = threading.Barrier(2, timeout=60)  # passed only by two crawls running at the same time


def _crawl(name):
    def crawl():
        BOTH.wait()
        return name

    return crawl


def _prepared(name):
    def prepare():
        with open(os.environ["PREPARED_LOG"], "a") as log:
            log.write(name + "\\n")
        return lambda: name

    return prepare


@pytest.fixture(scope="session")
def started(request):
    prepared = {"first": lambda: _crawl("first"), "second": lambda: _crawl("second")}
    with at_once(request, {**prepared, "third": _prepared("third"), "fourth": _prepared("fourth")}) as f:
        yield f


@pytest.fixture
def first(started):
    return started["first"].result()


@pytest.fixture
def second(started):
    return started["second"].result()


@pytest.fixture
def third(started):
    return started["third"].result()


@pytest.fixture
def fourth(started):
    return started["fourth"].result()
"""


def test_at_once_runs_the_crawls_the_sessions_tests_use_together_and_any_other_only_when_asked(tmp_path):
    suite = tmp_path / "suite"
    suite.mkdir()
    (suite / "conftest.py").write_text(AT_ONCE_CONFTEST)
    (suite / "test_crawls.py").write_text(
        "def test_first(first):\n    assert first == 'first'\n\n\n"
        "def test_second(second):\n    assert second == 'second'\n\n\n"
        "def test_third(third):\n    pass\n\n\n"
        "def test_fourth(request):\n    assert request.getfixturevalue('fourth') == 'fourth'\n"
    )
    prepared = tmp_path / "prepared.log"
    env = {"PYTHONPATH": str(PROJECT), "PREPARED_LOG": str(prepared), "PATH": "/usr/bin"}
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-k", "not third", str(suite)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert done.returncode == 0, textwrap.shorten(done.stdout + done.stderr, 3000)
    assert "3 passed, 1 deselected" in done.stdout
    assert prepared.read_text().splitlines() == ["fourth"]
