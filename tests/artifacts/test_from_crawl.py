"""Artifacts and re-runs: what the crawl exports equals what truth.jsonl implies, and nothing is ever lost."""

import csv
import json
from collections import Counter
from pathlib import Path
from urllib.parse import urlsplit

from tests.sampler.crawling import Stores, truth_of
from tests.sampler.test_spider import expected as reached

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


def test_each_listed_prefix_gets_its_floor_though_the_member_wide_sample_would_miss_it(tmp_path):
    # 200 DOIs under the member's first prefix, a handful under each of four others, each prefix on its own host:
    # a member-wide sample of 10 almost never holds 3 of each small one.
    sizes = {"10.99001": 200, "10.99002": 2, "10.99003": 3, "10.99004": 5, "10.99005": 8}
    dois = [(f"{prefix}/d{n}", "5", f"p{prefix[-1]}.example") for prefix, size in sizes.items() for n in range(size)]
    world = _world(tmp_path / "world", [{"id": "5", "primary-name": "Many Prefixes", "prefixes": list(sizes)}], dois)
    stores = _crawled(world, tmp_path / "stores", "-s", "LANDING_SAMPLE_MIN=10", "-s", "LANDING_SAMPLE_MAX=10")
    sampled = Counter(pid["pid/doi"].partition("/")[0] for pid in stores.export("pid"))
    assert {prefix: min(sampled[prefix], 3) for prefix in sizes} == {
        prefix: min(size, 3) for prefix, size in sizes.items()
    }
    assert sum(sampled.values()) == 15  # the budget: 10, raised to 3 for each of 5 prefixes
    assert {line for line in _read(stores.artifacts)["good"]} == {
        f"{prefix},p{prefix[-1]}.example,crossref" for prefix in sizes
    }


def test_every_prefix_a_sampled_member_lists_is_known_though_no_sampled_doi_had_it(tmp_path):
    # A member with three prefixes, whose DOIs all carry one: the other two are still known prefixes.
    members = [{"id": "5", "primary-name": "Many Prefixes", "prefixes": ["10.99005", "10.99006", "10.99007"]}]
    world = _world(tmp_path / "world", members, [("10.99005/a", "5", "many.example")])
    stores = _crawled(world, tmp_path / "stores")
    assert _read(stores.artifacts)["good"] == {
        "10.99005,many.example,crossref",
        "10.99006,,crossref",
        "10.99007,,crossref",
    }


def test_second_crawl_of_the_same_world_adds_no_duplicate_documents(small_sandbox, tmp_path):
    stores = Stores(tmp_path)
    stores.crawl(small_sandbox.proxy)
    first = {kind: stores.export(kind) for kind in ("pid", "snapshot", "analysis")}
    stores.crawl(small_sandbox.proxy)
    for kind in ("pid", "snapshot", "analysis"):
        docs = stores.export(kind)
        assert len(docs) == len({d["pid/doi"] for d in docs}), kind  # one per DOI: same day, same driver
        assert {d["pid/doi"] for d in first[kind]} <= {d["pid/doi"] for d in docs}, kind


def test_artifacts_stay_additive_across_crawls_of_two_worlds(small_sandbox, every_sandbox, tmp_path):
    artifacts = tmp_path / "artifacts"
    one, two = Stores(tmp_path / "one", artifacts), Stores(tmp_path / "two", artifacts)
    one.crawl(small_sandbox.proxy)
    after_one = _read(artifacts)
    two.crawl(every_sandbox.proxy)
    after_two = _read(artifacts)
    for key in after_one:
        assert after_one[key] <= after_two[key], key
    versions = sorted((artifacts / "versions").iterdir())
    assert len(versions) == 2
    assert _read(versions[0]) == after_one and _read(versions[1]) == after_two
    assert {line.split(",")[0] for line in after_two["good"]} == after_two["prefixes"]


def test_artifacts_command_rebuilds_the_same_artifacts_without_crawling(every_crawl, tmp_path):
    stores, _ = every_crawl
    rebuilt = Stores(stores.root, tmp_path / "rebuilt")
    done = rebuilt.scrapy("artifacts")
    assert done.returncode == 0, done.stderr
    assert _read(tmp_path / "rebuilt") == _read(stores.artifacts)
    reports = rebuilt.export("report")
    assert {r["report/kind"] for r in reports} == {"prefix", "domain", "member"}
