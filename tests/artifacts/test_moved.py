"""A site that moves between two crawls: the second export's diff shows the new domain appearing and the old one
unseen since the first crawl, and the old pair keeps its last-seen (issue 17)."""

import csv
import json

import pytest

from landing_dev.sandbox.server import RunningSandbox
from tests.sampler.crawling import Stores

DOI = "10.99004/moved"
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
    worlds = [(_world(root / "before", "old.example"), "auto"), (_world(root / "after", "new.example"), "new")]
    for world, run in worlds:
        sandbox = RunningSandbox(world)
        try:
            done = stores.crawl(sandbox.proxy, "-s", "LANDING_SOURCES=crossref", "-s", f"LANDING_RUN={run}")
            assert done.returncode == 0, done.stderr[-2000:]
        finally:
            sandbox.close()
    diff = stores.scrapy("artifacts", "--diff")
    return stores, diff


def test_the_diff_shows_the_new_domain_appearing_and_the_old_one_unseen_since(moved):
    stores, diff = moved
    assert diff.returncode == 0, diff.stderr[-2000:]
    lines = diff.stdout.splitlines()
    assert lines[2:4] == ["by prefix:", "  10.99004"]
    assert lines[4] == "    new.example  +good +recognised +confirmed"
    assert lines[5].startswith("    old.example  not seen since 20")


def test_each_export_writes_its_changes_beside_its_version(moved):
    stores, _ = moved
    first, second = sorted((stores.artifacts / "versions").iterdir())
    assert json.loads((first / "changes.json").read_text())["from"] is None
    written = json.loads((second / "changes.json").read_text())
    assert (written["from"], [(row["domain"], bool(row["unseen-since"])) for row in written["pairs"]]) == (
        first.name,
        [("new.example", False), ("old.example", True)],
    )


def test_the_old_pair_stays_with_its_last_seen_before_the_new_ones_first_seen(moved):
    stores, _ = moved
    rows = {row[1]: row for row in csv.reader(open(stores.artifacts / "prefixes-domains.csv"))}
    assert rows["old.example"][4] < rows["new.example"][3]
