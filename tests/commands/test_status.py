"""`scrapy status` on a store filled with documents of the shapes continuous mode and a full run write: one line on
stdout, exit 0 healthy, 2 unhealthy, 3 unknown. The first test runs the command as an operator does; the others run
the same command object in this process (a scrapy process costs 2 s)."""

import json
import socket
from datetime import UTC, datetime, timedelta

import pytest
from scrapy.settings import Settings

from landing import clock
from landing import settings as project
from landing.artifacts.artifact_files import export
from landing.commands.status import Command, latest_version
from landing.core.continuous.freshness import Prefix, prefix_doc, prefix_id
from landing.core.publishing.artifact_sets import Artifacts
from landing.stores import open_docs
from tests.sampler.crawling import Stores

NOW = datetime(2026, 11, 26, 4, tzinfo=UTC)
PINNED = {"LANDING_CLOCK": "2026-11-26T04:00:00Z", "LANDING_CLOCK_SPEED": 1e-9}  # NOW, standing still


@pytest.fixture(autouse=True)
def unset_clock():
    yield
    clock.set_clock(None)  # the command sets this process's clock


def status(stores: Stores, capsys, **settings) -> tuple[int, str]:
    """(exit status, stdout) of `scrapy status` on these stores, run in this process with the pinned clock."""
    given = Settings()
    given.setmodule(project)
    given.setdict({**stores.stores.as_settings(), **PINNED})
    given.setdict(settings)
    command = Command()
    command.settings = given
    command.run([], None)
    return command.exitcode, capsys.readouterr().out


def _stamp(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def continuous_store(root, oldest_days: float) -> Stores:
    """A continuous run's state, 20 prefixes sampled 0.3 to oldest_days ago and 1 never, a version 3 hours old."""
    stores = Stores(root)
    ages = [oldest_days * (n + 1) / 20 for n in range(20)]
    with open_docs(stores.docs) as docs:
        for n, age in enumerate(ages):
            prefix = Prefix("crossref", str(n), f"10.{1000 + n}", 40, NOW - timedelta(days=age))
            docs.put(
                "prefix", prefix_id("crossref", prefix.prefix), prefix_doc(prefix, _stamp(NOW - timedelta(days=20)))
            )
        new = Prefix("datacite", "x.y", "10.5061", 4)
        docs.put("prefix", prefix_id("datacite", "10.5061"), prefix_doc(new, _stamp(NOW - timedelta(hours=2))))
        state = {
            "continuous/run": "continuous",
            "continuous/listed": _stamp(NOW - timedelta(hours=2)),
            "continuous/exported": _stamp(NOW - timedelta(hours=3)),
            "continuous/version": "20261126T010000Z",
            "continuous/changes": 1,
            "continuous/carry": 0.0,
            "continuous/pruned": None,
            "continuous/day": "2026-11-26",
            "continuous/requests-today": 125_000,
            "continuous/updated": _stamp(NOW),
        }
        docs.put("continuous", "state", state)
    good = Artifacts(
        good=frozenset({("10.1000", "a.example", "crossref")}), prefixes=frozenset({("10.1000", "crossref")})
    )
    export(stores.artifacts, good, now=NOW - timedelta(hours=3))
    return stores


def test_a_healthy_continuous_run_is_one_line_and_exit_0(tmp_path):
    done = continuous_store(tmp_path, oldest_days=6).scrapy(
        "status", *(f"-s{name}={value}" for name, value in PINNED.items())
    )
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout == (
        "continuous run continuous: 21 prefixes, age p50 3 d p95 5.7 d max 6 d (refresh 7 d), 1 never sampled; "
        "last version 20261126T010000Z (3 h ago); budget 25% of today's (125,000 requests); "
        "health OK\n"
    )


def test_a_prefix_older_than_refresh_days_exits_2_naming_the_check(tmp_path, capsys):
    code, out = status(continuous_store(tmp_path, oldest_days=8), capsys)
    assert code == 2
    assert out.endswith("; health FAILED: freshness (oldest prefix 8 d, bound 7 d)\n")


def test_a_full_run_says_its_progress(tmp_path, capsys):
    stores = Stores(tmp_path)
    run = {"run/id": "r1", "run/started": "2026-11-26T00:00:00Z", "run/state": "visiting", "run/owners": 3}
    with open_docs(stores.docs) as docs:
        docs.put("run", "r1", {**run, "run/dois-planned": 30})
        for order, dois in enumerate((["10.1/a", "10.1/b"], ["10.2/c"], None)):
            docs.put("sample", f"r1/{order:07d}", {"sample/order": order, "sample/dois": dois})
        for rank in range(2):
            docs.put("visit", f"r1/0000000/{rank:04d}", {"visit/order": 0, "visit/rank": rank})
    assert status(stores, capsys) == (
        0,
        "full run r1 (visiting): 2 of 3 owners sampled, 2 of 30 planned DOIs visited; no version exported yet\n",
    )


def test_a_missing_sqlite_store_is_unknown_exit_3_and_not_created(tmp_path, capsys):
    code, out = status(Stores(tmp_path), capsys)
    assert (code, out) == (3, f"status unknown: no document store at {tmp_path / 'landing.db'} (LANDING_DOCS)\n")
    assert not (tmp_path / "landing.db").exists()  # not created by looking


def test_an_unreachable_elasticsearch_is_unknown_exit_3(tmp_path, capsys):
    with socket.socket() as free:
        free.bind(("127.0.0.1", 0))
        port = free.getsockname()[1]  # nothing listens there once closed
    code, out = status(Stores(tmp_path), capsys, LANDING_DOCS=f"http://127.0.0.1:{port}")
    assert code == 3
    assert out.startswith(f"status unknown: cannot read the document store: LANDING_DOCS='http://127.0.0.1:{port}': ")


def test_an_empty_store_is_unknown_exit_3(tmp_path, capsys):
    stores = Stores(tmp_path)
    open_docs(stores.docs).close()
    assert status(stores, capsys) == (
        3,
        "status unknown: the document store holds no run and no continuous state yet\n",
    )


def test_a_bad_setting_is_unknown_exit_3(tmp_path, capsys):
    code, out = status(Stores(tmp_path), capsys, LANDING_REFRESH_DAYS="soon")
    assert (code, out) == (3, "status unknown: LANDING_REFRESH_DAYS='soon' is not a number\n")


def test_the_pairs_changed_are_only_those_its_changes_json_marks_as_news(tmp_path):
    version = tmp_path / "versions" / "20261126T010000Z"
    version.mkdir(parents=True)
    pairs = [{"prefix": "10.1", "news": True}, {"prefix": "10.2", "news": False}, {"prefix": "10.3", "news": False}]
    (version / "changes.json").write_text(json.dumps({"pairs": pairs}))
    assert latest_version(tmp_path).changed == 1


def test_a_first_version_counts_no_pair_changed_having_nothing_to_change_from(tmp_path):
    version = tmp_path / "versions" / "20261126T010000Z"
    version.mkdir(parents=True)
    pairs = [{"prefix": "10.1", "appeared": ["good"], "news": True}]
    (version / "changes.json").write_text(json.dumps({"from": None, "to": version.name, "pairs": pairs}))
    assert latest_version(tmp_path).changed is None
