"""`scrapy artifacts --diff` on versions that cannot be read: one line naming the file, exit 2, no traceback."""

from datetime import UTC, datetime

import pytest

from landing.artifacts.artifact_files import export
from landing.core.publishing.artifact_sets import Artifacts
from landing.publish.report_data import MEMBERS, write_jsonl_gz
from tests.sampler.crawling import Stores

FIRST = Artifacts(good=frozenset({("10.1", "a.example", "crossref")}), prefixes=frozenset({("10.1", "crossref")}))
SECOND = Artifacts(bad=frozenset({("10.2", "b.example", "crossref")}), prefixes=frozenset({("10.2", "crossref")}))
DECISIONS, GOOD = "domain-decision-structure.json", "prefixes-domains.csv"

CORRUPT = {
    "not-the-shape": (DECISIONS, b'{"domains-prefixes": []}', 'expected an object with a "domains-prefixes" object'),
    "nested-100000-deep": (DECISIONS, b"[" * 100_000 + b"]" * 100_000, "nested too deeply to read"),
    "field-of-131073": (GOOD, b"10.1," + b"a" * 131_073 + b",crossref\n", "line 1: field larger than field limit"),
    "not-utf-8": (GOOD, b"10.1,a.example,crossref\n10.2,\xff.example,crossref\n", "not UTF-8 (invalid start byte"),
}


@pytest.fixture
def versions(tmp_path):
    stores = Stores(tmp_path)
    old = export(stores.artifacts, FIRST, now=datetime(2026, 11, 24, tzinfo=UTC))
    new = export(stores.artifacts, SECOND, now=datetime(2026, 11, 25, tzinfo=UTC))
    return stores, old, new


@pytest.mark.parametrize("corruption", CORRUPT)
def test_a_version_that_cannot_be_read_is_one_line_naming_the_file_and_exit_2(versions, corruption):
    stores, _, new = versions
    name, content, said = CORRUPT[corruption]
    (new / name).write_bytes(content)
    done = stores.scrapy("artifacts", "--diff")
    assert (done.returncode, done.stdout, len(done.stderr.splitlines())) == (2, "", 1)
    assert done.stderr.startswith(f"artifacts: {new / name}: {said}")


def test_a_version_whose_file_is_missing_is_refused_in_one_line_not_read_as_every_pair_removed(versions):
    stores, old, _ = versions
    (old / GOOD).unlink()
    done = stores.scrapy("artifacts", "--diff")
    assert (done.returncode, done.stdout, done.stderr) == (
        2,
        "",
        f"artifacts: {old / GOOD}: missing: this version cannot be read\n",
    )


def test_a_corrupt_version_named_on_the_command_line_is_refused_the_same_way(versions):
    stores, old, new = versions
    (old / DECISIONS).write_text('{"domains-prefixes": {"a\\u001b[2J\\u202e.example": 1}}')
    done = stores.scrapy("artifacts", "--diff", old.name, new.name)
    assert (done.returncode, done.stderr) == (
        2,
        f'artifacts: {old / DECISIONS}: "domains-prefixes"["a\\x1b[2J\\u202e.example"] must be an object\n',
    )


def test_an_export_onto_a_corrupt_latest_version_is_refused_the_same_way(versions):
    stores, _, _ = versions
    (stores.artifacts / GOOD).write_bytes(b"\xff")
    done = stores.scrapy("artifacts")
    assert (done.returncode, done.stderr.splitlines()[-1]) == (
        2,
        f"artifacts: {stores.artifacts / GOOD}: not UTF-8 (invalid start byte at byte 0)",
    )


def test_the_diff_names_each_prefix_by_its_owner_in_the_newer_versions_members_file(versions):
    stores, old, new = versions
    write_jsonl_gz(
        new / MEMBERS, [{"member": "crossref/7", "name": "Harbour Lane Press", "prefixes": [{"prefix": "10.2"}]}]
    )
    done = stores.scrapy("artifacts", "--diff")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[1:] == [
        "prefixes: +1 -0",
        "  + 10.2  Harbour Lane Press (crossref/7)",
        "by prefix:",
        "  10.2  Harbour Lane Press (crossref/7)",
        "    b.example  +bad",
        "by domain:",
        "  b.example",
        "    10.2  +bad  Harbour Lane Press (crossref/7)",
        "pairs changed: 1, and 0 unseen likely by sampling alone",
    ]


def test_a_members_file_that_cannot_be_read_is_refused_in_one_line_like_the_other_files(versions):
    stores, _, new = versions
    (new / MEMBERS).write_bytes(b"not gzip")
    done = stores.scrapy("artifacts", "--diff")
    assert (done.returncode, done.stdout, len(done.stderr.splitlines())) == (2, "", 1)
    assert done.stderr.startswith(f"artifacts: {new / MEMBERS}: ")
