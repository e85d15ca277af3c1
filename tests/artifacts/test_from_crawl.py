"""Artifacts and re-runs: what the crawl exports equals what truth.jsonl implies, and nothing is ever lost."""

import csv
import json
import shutil
from collections import Counter
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from tests.sampler.crawling import Stores, truth_of
from tests.sampler.test_doi_sampler import expected as reached

RESOLVER_HOSTS = {"doi.org", "dx.doi.org"}


def _expected(truth: dict, sampled: set, samples: list[dict] = ()) -> dict:
    """The artifacts' rules applied to truth for the sampled DOIs, written independently of landing.core; every
    prefix of a sampled owner is known too."""
    good, bad, prefixes, recognised, confirmed = set(), set(), {}, set(), set()
    for sample in samples:
        if sample["sample/dois"] is not None:
            prefixes.update({p: sample["sample/ra"] for p in sample["sample/prefixes"]})
    for doi in sampled:
        t = truth[doi]
        prefixes[t["prefix"]] = t["ra"]
        final_url, error = reached(t)
        ended = final_url if error is None else t["end_url"]
        domain = urlsplit(ended).hostname if ended else None
        if domain is None or domain in RESOLVER_HOSTS or not t["resource_url"] or error == "refused-address":
            continue  # the visit never left the resolver, or went where the guard refused: it followed no domain
        recognised.add((domain, t["prefix"]))
        if error is not None:
            bad.add((t["prefix"], domain, t["ra"]))
            continue
        if t["meta_tag_correctness"] == "ok":
            confirmed.add((domain, t["prefix"]))
        found = t["doi_in_text"] or t["doi_in_hyperlinks"] or t["doi_in_meta_tags"]
        (good if found else bad).add((t["prefix"], domain, t["ra"]))
    good_lines = {",".join(g) for g in good}
    good_lines |= {f"{p},,{ra}" for p, ra in prefixes.items() if not any(g[0] == p for g in good)}
    return {
        "good": good_lines,
        "bad": {",".join(b) for b in bad},
        "prefixes": set(prefixes),
        "recognised": recognised,
        "confirmed": confirmed,
    }


def _read(directory: Path) -> dict:
    def lines(name):
        return {",".join(row[:3]) for row in csv.reader(open(directory / name))}

    decisions = json.loads((directory / "domain-decision-structure.json").read_text())
    pairs = [(d, p, v) for d, ps in decisions["domains-prefixes"].items() for p, v in ps.items()]
    return {
        "good": lines("prefixes-domains.csv"),
        "bad": lines("prefixes-domains-bad.csv"),
        "prefixes": set(decisions["prefixes"]),
        "recognised": {(d, p) for d, p, v in pairs if v["domain-recognised"]},
        "confirmed": {(d, p) for d, p, v in pairs if v["domain-confirmed"]},
    }


def test_exported_artifacts_equal_artifacts_computed_from_truth(every_crawl, every_scenario_world):
    stores, _ = every_crawl
    sampled = {p["pid/doi"] for p in stores.export("pid")}
    assert _read(stores.artifacts) == _expected(truth_of(every_scenario_world), sampled, stores.export("sample"))


def test_mixed_world_artifacts_equal_artifacts_computed_from_truth(mixed_crawl, mixed_world):
    stores, _ = mixed_crawl
    sampled = {p["pid/doi"] for p in stores.export("pid")}
    assert _read(stores.artifacts) == _expected(truth_of(mixed_world), sampled, stores.export("sample"))


def _world(directory: Path, members: list[dict], dois: list[tuple[str, str, str]]) -> Path:
    """A hand-made world: members, and (DOI, member, host) whose page states the DOI."""
    directory.mkdir()
    (directory / "world.json").write_text(json.dumps({"format": "landing-sandbox/1", "members": members}))
    page = '<html><head><meta name="citation_doi" content="{}"></head><body>.</body></html>'
    with open(directory / "dois.jsonl", "w") as records, open(directory / "routes.jsonl", "w") as routes:
        for doi, member, host in dois:
            url = f"https://{host}/{doi.partition('/')[2]}"
            records.write(json.dumps({"doi": doi, "ra": "crossref", "member": member, "url": url}) + "\n")
            routes.write(json.dumps({"url": url, "body": page.format(doi)}) + "\n")
    return directory


def _crawled(world: Path, root: Path, *settings) -> Stores:
    from landing_dev.sandbox.server import RunningSandbox

    sandbox = RunningSandbox(world)
    try:
        stores = Stores(root)
        stores.crawl(sandbox.proxy, "-s", "LANDING_SOURCES=crossref", *settings)
    finally:
        sandbox.close()
    return stores


# Member 5: 200 DOIs under its first prefix, a handful under each of four others, each prefix on its own host: a
# member-wide sample of 10 almost never holds 3 of each small one. Member 6: three prefixes, its one DOI under the
# first. One crawl of both (each member's sample is its own: the other's DOIs neither add to it nor take from it).
FLOOR_SIZES = {"10.99001": 200, "10.99002": 2, "10.99003": 3, "10.99004": 5, "10.99005": 8}
UNUSED_PREFIXES = ["10.99006", "10.99007", "10.99008"]


@pytest.fixture(scope="module")
def prefixes_crawl(tmp_path_factory):
    """The hand-made world of members 5 and 6 crawled with samples of 10; its stores."""
    root = tmp_path_factory.mktemp("prefixes")
    members = [
        {"id": "5", "primary-name": "Many Prefixes", "prefixes": list(FLOOR_SIZES)},
        {"id": "6", "primary-name": "Unused Prefixes", "prefixes": UNUSED_PREFIXES},
    ]
    dois = [(f"{p}/d{n}", "5", f"p{p[-1]}.example") for p, size in FLOOR_SIZES.items() for n in range(size)]
    world = _world(root / "world", members, [*dois, ("10.99006/a", "6", "many.example")])
    return _crawled(world, root / "stores", "-s", "LANDING_SAMPLE_MIN=10", "-s", "LANDING_SAMPLE_MAX=10")


def test_each_listed_prefix_gets_its_floor_though_the_member_wide_sample_would_miss_it(prefixes_crawl):
    sampled = Counter(pid["pid/doi"].partition("/")[0] for pid in prefixes_crawl.export("pid"))
    assert {prefix: min(sampled[prefix], 3) for prefix in FLOOR_SIZES} == {
        prefix: min(size, 3) for prefix, size in FLOOR_SIZES.items()
    }
    assert sum(sampled[prefix] for prefix in FLOOR_SIZES) == 15  # the budget: 10, raised to 3 for each of 5 prefixes
    assert {line for line in _read(prefixes_crawl.artifacts)["good"] if line.split(",")[0] in FLOOR_SIZES} == {
        f"{prefix},p{prefix[-1]}.example,crossref" for prefix in FLOOR_SIZES
    }


def test_every_prefix_a_sampled_member_lists_is_known_though_no_sampled_doi_had_it(prefixes_crawl):
    # Member 6 lists three prefixes, and its DOIs all carry one: the other two are still known prefixes.
    assert {line for line in _read(prefixes_crawl.artifacts)["good"] if line.split(",")[0] in UNUSED_PREFIXES} == {
        "10.99006,many.example,crossref",
        "10.99007,,crossref",
        "10.99008,,crossref",
    }


@pytest.fixture(scope="module")
def small_twice(every_crawl, small_sandbox, tmp_path_factory):
    """The small world crawled twice into one store, whose artifacts directory starts as a copy of the every-scenario
    crawl's: the second world's artifacts over the first's, then a re-run. {what each step left}."""
    root = tmp_path_factory.mktemp("small-twice")
    artifacts = shutil.copytree(every_crawl[0].artifacts, root / "artifacts")
    stores = Stores(root / "stores", artifacts)
    seen = {"before": _read(artifacts), "versions_before": sorted((artifacts / "versions").iterdir())}
    stores.crawl(small_sandbox.proxy)
    seen["after"], seen["versions_after"] = _read(artifacts), sorted((artifacts / "versions").iterdir())
    seen["first"] = {kind: stores.export(kind) for kind in ("pid", "snapshot", "analysis")}
    stores.crawl(small_sandbox.proxy)
    seen["second"] = {kind: stores.export(kind) for kind in ("pid", "snapshot", "analysis")}
    return seen


def test_second_crawl_of_the_same_world_adds_no_duplicate_documents(small_twice):
    first, second = small_twice["first"], small_twice["second"]
    for kind in ("pid", "snapshot", "analysis"):
        docs = second[kind]
        assert len(docs) == len({d["pid/doi"] for d in docs}), kind  # one per DOI: same day, same driver
        assert {d["pid/doi"] for d in first[kind]} <= {d["pid/doi"] for d in docs}, kind


def test_artifacts_stay_additive_across_crawls_of_two_worlds(small_twice):
    before, after = small_twice["before"], small_twice["after"]
    for key in before:
        assert before[key] <= after[key], key
    versions, earlier = small_twice["versions_after"], small_twice["versions_before"]
    assert versions[:-1] == earlier  # the crawl added one version
    assert _read(earlier[-1]) == before and _read(versions[-1]) == after
    assert {line.split(",")[0] for line in after["good"]} == after["prefixes"]
    assert after["prefixes"] - before["prefixes"]  # the second world brought prefixes of its own


def test_artifacts_command_rebuilds_the_same_artifacts_without_crawling(every_crawl, tmp_path):
    stores, _ = every_crawl
    rebuilt = Stores(stores.root, tmp_path / "rebuilt")
    done = rebuilt.scrapy("artifacts")
    assert done.returncode == 0, done.stderr
    assert _read(tmp_path / "rebuilt") == _read(stores.artifacts)
    reports = rebuilt.export("report")
    assert {r["report/kind"] for r in reports} == {"prefix", "domain", "member"}
