"""Issue 33's done-when: a crawl in which one member's site moves shows that member's alert in the next version.

Two full runs over a hand-written world, the sandbox serving it at two moments of its timeline: before the move of
Moving Press's journal site, then twenty days after it. Each run exports a version at its close.
"""

import gzip
import json
from contextlib import closing
from pathlib import Path

import pytest

from landing_dev.sandbox.server import RunningSandbox
from landing_dev.sandbox.timeline import moment
from tests.sampler.crawling import Stores

START = "2030-01-01T00:00:00Z"
LATER = "2030-01-21T00:00:00Z"
OLD, NEW, STEADY = "journal.moving.example", "journal.moved.example", "steady.example"
MOVING = {f"10.99010/{n}": f"https://{OLD}/article/{n}" for n in "abcdef"}
STILL = {f"10.99011/{n}": f"https://{STEADY}/item/{n}" for n in "abcd"}


def _page(doi: str | None) -> str:
    meta = f'<meta name="citation_doi" content="{doi}">' if doi else ""
    return f"<html><head>{meta}<title>An article</title></head><body><p>An article.</p></body></html>"


@pytest.fixture(scope="module")
def crawled(tmp_path_factory):
    """The artifacts directory after both runs, and `scrapy report --member 1`'s output."""
    world = tmp_path_factory.mktemp("moving-world")
    members = [
        {"id": "1", "primary-name": "Moving Press", "prefixes": ["10.99010"]},
        {"id": "2", "primary-name": "Steady Press", "prefixes": ["10.99011"]},
    ]
    (world / "world.json").write_text(json.dumps({"format": "landing-sandbox/1", "members": members}))
    dois = [(d, "1", u) for d, u in MOVING.items()] + [(d, "2", u) for d, u in STILL.items()]
    (world / "dois.jsonl").write_text(
        "".join(json.dumps({"doi": d, "ra": "crossref", "member": m, "url": u}) + "\n" for d, m, u in dois)
    )
    # Moving Press states its DOIs; Steady Press's pages never do (something to fix, nothing moved).
    routes = [{"url": u, "body": _page(d)} for d, u in MOVING.items()]
    routes += [{"url": u, "body": _page(None)} for u in STILL.values()]
    (world / "routes.jsonl").write_text("".join(json.dumps(route) + "\n" for route in routes))
    move = {"at": "2030-01-10T00:00:00Z", "kind": "move", "host": OLD, "to": NEW, "old": "gone"}
    (world / "timeline.jsonl").write_text(json.dumps(move) + "\n")
    stores = Stores(tmp_path_factory.mktemp("moving-stores"))
    for when in (START, LATER):
        with closing(RunningSandbox(world, now=lambda when=when: moment(when))) as sandbox:
            stores.crawl(sandbox.proxy, "-s", f"LANDING_CLOCK={when}", "-s", "LANDING_SOURCES=crossref")
    shown = stores.scrapy("report", "--member", "1")
    assert shown.returncode == 0, shown.stderr
    return Path(stores.artifacts), shown.stdout


def _alerts(version: Path) -> dict[str, dict]:
    return {a["member"]: a for a in map(json.loads, (version / "alerts.jsonl").read_text().splitlines())}


def _versions(artifacts: Path) -> list[Path]:
    return sorted((artifacts / "versions").iterdir())


def test_each_run_exports_a_version_at_its_moment(crawled):
    assert [v.name[:9] for v in _versions(crawled[0])] == ["20300101T", "20300121T"]


def test_before_the_move_only_the_member_whose_pages_lack_their_doi_has_an_alert(crawled):
    assert sorted(_alerts(_versions(crawled[0])[0])) == ["crossref/2"]


def test_the_next_version_alerts_the_moved_member_with_its_prefix_from_the_old_domain_to_the_new(crawled):
    first, second = _versions(crawled[0])
    alert = _alerts(second)["crossref/1"]
    assert (alert["previous"], alert["worse"]["moved"], alert["fix"]) == (
        first.name,
        [{"prefix": "10.99010", "from": [OLD], "to": [NEW]}],
        {
            "prefixes-unread": [],
            "prefixes-without-good-domain": [],
            "domains-missing-doi": [],
            "domains-wrong-doi": [],
            "failing-domains": [],
        },
    )


def test_the_member_whose_site_stayed_is_alerted_for_what_to_fix_and_nothing_moved(crawled):
    alert = _alerts(_versions(crawled[0])[1])["crossref/2"]
    assert (alert["worse"]["moved"], alert["fix"]["domains-missing-doi"]) == (
        [],
        [
            {
                "domain": STEADY,
                "dois": 4,
                "missing": 4,
                "example": {"doi": "10.99011/a", "url": f"https://{STEADY}/item/a"},
            }
        ],
    )


def test_the_members_file_names_the_moved_members_new_domain_with_its_pages_read(crawled):
    with gzip.open(_versions(crawled[0])[1] / "members.jsonl.gz", "rt") as lines:
        member = json.loads(next(lines))
    assert (member["member"], [(d["domain"], d["dois"], d["ok-share"]) for d in member["domains"]]) == (
        "crossref/1",
        [(NEW, 6, 1.0)],
    )


def test_scrapy_report_member_prints_the_move_and_the_members_page(crawled):
    artifacts, out = crawled
    version = _versions(artifacts)[1].name
    assert out.splitlines() == [
        f"Crossref member 1 (Moving Press), version {version}:",
        f"Crossref member 1 (Moving Press): of 6 DOIs sampled, 6 landing pages read, 6 with a correct DOI meta tag: "
        f"100.0% (95% interval 61.0–100.0%, of 6 read). Moved since version {_versions(artifacts)[0].name}: 10.99010 from {OLD} to {NEW}. "
        "Keep each old address redirecting to its new landing page, and register the DOIs' new URLs.",
        f"page: {artifacts / 'report' / 'members' / 'crossref-1.html'}",
    ]
