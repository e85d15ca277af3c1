"""A site that moves between two crawls: the second export's diff shows the new domain appearing and the old one
unseen since the first crawl, and the old pair keeps its last-seen (issue 17)."""

import csv
import json
import re

import pytest

from landing.core.publishing.sightings import SEEN_CSV
from landing_dev.sandbox.server import RunningSandbox
from tests.sampler.crawling import Stores

DOI = "10.99004/moved"
BEFORE, AFTER = "2026-03-01T00:00:00Z", "2026-03-02T00:00:00Z"
PAGE = f'<html><head><meta name="citation_doi" content="{DOI}"><title>A moved work</title></head><body>.</body></html>'


def _world(root, host):
    root.mkdir()
    (root / "world.json").write_text(
        json.dumps(
            {
                "format": "landing-sandbox/1",
                "members": [{"id": "1", "primary-name": "Moving Press", "prefixes": ["10.99004"]}],
            }
        )
    )
    url = f"https://{host}/article"
    (root / "dois.jsonl").write_text(json.dumps({"doi": DOI, "ra": "crossref", "member": "1", "url": url}) + "\n")
    (root / "routes.jsonl").write_text(json.dumps({"url": url, "body": PAGE}) + "\n")
    return root


@pytest.fixture(scope="module")
def moved(tmp_path_factory):
    root = tmp_path_factory.mktemp("moved")
    stores = Stores(root / "stores")
    # Each crawl gets its day on the one clock (LANDING_CLOCK): two crawls in the same wall-clock second stay ordered.
    worlds = [
        (_world(root / "before", "old.example"), "auto", BEFORE),
        (_world(root / "after", "new.example"), "new", AFTER),
    ]
    for world, run, when in worlds:
        sandbox = RunningSandbox(world)
        try:
            done = stores.crawl(
                sandbox.proxy,
                "-s",
                "LANDING_SOURCES=crossref",
                "-s",
                f"LANDING_RUN={run}",
                "-s",
                f"LANDING_CLOCK={when}",
            )
            assert done.returncode == 0, done.stderr[-2000:]
        finally:
            sandbox.close()
    diff = stores.scrapy("artifacts", "--diff")
    return stores, diff


def test_the_diff_shows_the_new_domain_appearing_and_the_old_one_unseen_since_its_crawl(moved):
    stores, diff = moved
    assert diff.returncode == 0, diff.stderr[-2000:]
    lines = diff.stdout.splitlines()
    assert lines[2] == "by prefix:"
    assert lines[4] == "    new.example  +good +recognised +confirmed"
    assert lines[5].startswith("    old.example  not seen since 2026-03-01T00:0"), lines[5]


def test_the_diff_names_the_prefix_by_its_owners_listed_name_and_member(moved):
    _, diff = moved
    lines = diff.stdout.splitlines()
    assert lines[3] == "  10.99004  Moving Press (crossref/1)"
    assert re.fullmatch(
        r"    10\.99004  not seen since 2026-03-01T\S+ \(likely sampling: not counted\)  Moving Press \(crossref/1\)",
        lines[-2],
    ), lines


def test_each_export_writes_its_changes_beside_its_version_named_on_the_crawl_s_clock(moved):
    stores, _ = moved
    first, second = sorted((stores.artifacts / "versions").iterdir())
    assert (first.name[:11], second.name[:11]) == ("20260301T00", "20260302T00")
    assert json.loads((first / "changes.json").read_text())["from"] is None
    written = json.loads((second / "changes.json").read_text())
    assert (written["from"], [(row["domain"], bool(row["unseen-since"]), row["news"]) for row in written["pairs"]]) == (
        first.name,
        [("new.example", False, True), ("old.example", True, False)],  # one DOI: too few to count the move
    )


def test_the_old_pair_keeps_its_last_seen_on_the_first_crawl_s_day_the_new_one_is_first_seen_on_the_second_s(moved):
    stores, _ = moved
    seen = {(row[0], row[1]): row[2:] for row in csv.reader(open(stores.artifacts / SEEN_CSV))}
    old_last, new_first = seen[("10.99004", "old.example")][1], seen[("10.99004", "new.example")][0]
    assert (old_last[:13], new_first[:13]) == ("2026-03-01T00", "2026-03-02T00")
