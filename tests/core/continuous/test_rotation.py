"""Rotating samples (landing/core/continuous/rotation.py): a refresh revisits one DOI per known site and draws DOIs
not drawn before, so a prefix's known sites and DOIs grow each round, and a silent move of a known site shows at
its next refresh."""

import random

from landing.core.continuous import rotation, schedule
from landing.core.continuous.freshness import DOMAIN_CHANGED, Prefix, prefix_doc
from landing.core.continuous.retention import doi_to_drop
from landing.core.pages.documents import snapshot_id
from landing.core.publishing.aggregation import Aggregate
from landing.core.publishing.artifact_sets import merge

LISTED = "2026-11-01T00:00:00Z"


def _visit(doi, domain, at, error=None):
    return {
        "pid/doi": doi,
        "snapshot/final-url-domain": domain,
        "snapshot/error": error,
        "snapshot/resource-url": f"https://{domain}/",
        "snapshot/timestamp": at,
        "analysis/meta-tag-correctness": "ok",
    }


def _round(doc, world, day, size, rng, stored):
    """One refresh of a prefix over `world` ({DOI: domain}), the API drawing at random: (doc after, sample)."""
    planned = f"2026-11-{day:02d}T00:00:00Z"
    panel = rotation.revisited(doc.get("prefix/panel") or (), size)
    answered = rng.sample(sorted(world), min(2 * size, len(world)))
    dois = rotation.drawn_fresh(panel, answered, doc.get("prefix/drawn-keys") or "", size)
    sample = {"sample/planned": planned, "sample/dois": dois, "sample/panel": panel}
    stored += [_visit(doi, world[doi], planned) for doi in dois]
    return schedule.sampled(doc, sample, stored), sample


def test_a_refresh_takes_its_panel_then_dois_never_drawn_then_drawn_ones_up_to_its_size():
    drawn = rotation.drawn_key("10.1/b") + rotation.drawn_key("10.1/c")
    answered = ["10.1/b", "10.1/d", "10.1/a", "10.1/c", "10.1/e"]
    assert rotation.drawn_fresh(["10.1/a"], answered, drawn, 4) == ["10.1/a", "10.1/d", "10.1/e", "10.1/b"]


def test_a_fresh_doi_on_a_site_never_seen_joins_the_panel_and_signals_nothing():
    doc = {**prefix_doc(Prefix("crossref", "7", "10.1", 50), LISTED, panel=["10.1/a"]), "prefix/sites": {}}
    doc["prefix/sites"] = {"a.example": "10.1/a"}
    earlier = [_visit("10.1/a", "a.example", "2026-11-02T00:10:00Z")]
    sample = {"sample/planned": "2026-11-09T00:00:00Z", "sample/dois": ["10.1/a", "10.1/z"], "sample/panel": ["10.1/a"]}
    latest = [_visit("10.1/a", "a.example", "2026-11-09T00:05:00Z"), _visit("10.1/z", "z.example", "2026-11-09T01:00Z")]
    after = schedule.sampled(doc, sample, earlier + latest)
    assert after["prefix/signals"] == []
    assert after["prefix/sites"] == {"a.example": "10.1/a", "z.example": "10.1/z"}
    assert sorted(after["prefix/panel"]) == ["10.1/a", "10.1/z"]


def test_a_silent_move_of_a_known_site_signals_domain_changed_at_the_prefixs_next_refresh():
    world = {f"10.1/{n}": ("a.example" if n % 4 else "b.example") for n in range(40)}
    rng, stored = random.Random(3), []
    doc = prefix_doc(Prefix("crossref", "7", "10.1", 40), LISTED)
    for day in (2, 9):
        doc, _ = _round(doc, world, day, 10, rng, stored)
    assert set(doc["prefix/sites"]) == {"a.example", "b.example"}
    moved = {doi: "b-new.example" if domain == "b.example" else domain for doi, domain in world.items()}
    doc, sample = _round(doc, moved, 16, 10, rng, stored)
    assert doc["prefix/signals"] == [DOMAIN_CHANGED]
    assert doc["prefix/sites"]["b-new.example"] in sample["sample/panel"]


def test_each_refresh_draws_dois_never_drawn_before_while_the_prefix_has_them():
    world = {f"10.1/{n}": f"site{n % 3}.example" for n in range(200)}
    rng, stored, drawn = random.Random(5), [], set()
    doc = prefix_doc(Prefix("crossref", "7", "10.1", 200), LISTED)
    for day in (2, 9, 16, 23, 30):
        doc, sample = _round(doc, world, day, 10, rng, stored)
        fresh = set(sample["sample/dois"]) - set(sample["sample/panel"])
        assert not fresh & drawn
        drawn |= set(sample["sample/dois"])
        assert doc["prefix/drawn"] == len(drawn)
    assert len(drawn) == 10 + 4 * (10 - 3)  # the first sample whole, then every refresh less its 3 sites' panel


def test_a_panel_longer_than_a_refresh_revisits_every_site_in_turn():
    world = {f"10.1/{n}": f"site{n % 12}.example" for n in range(120)}  # twelve sites, eight panel DOIs a refresh
    panel = [f"10.1/{n}" for n in range(12)]
    doc = {
        **prefix_doc(Prefix("crossref", "7", "10.1", 120), LISTED, panel=panel),
        "prefix/sites": {world[doi]: doi for doi in panel},
    }
    rng, stored, revisited = random.Random(7), [], set()
    for day in (9, 16):
        doc, sample = _round(doc, world, day, 10, rng, stored)
        assert len(sample["sample/panel"]) == 8
        revisited |= set(sample["sample/panel"])
    assert revisited == set(panel)


def test_the_drawn_record_keeps_the_latest_keys_only_and_counts_on():
    record = "".join(rotation.drawn_key(f"10.1/{n}") for n in range(rotation.DRAWN_KEEP))
    after = rotation.learnt(
        {"prefix/drawn": rotation.DRAWN_KEEP, "prefix/drawn-keys": record}, {"sample/dois": ["10.1/new"]}, []
    )
    assert after["prefix/drawn"] == rotation.DRAWN_KEEP + 1
    assert after["prefix/drawn-keys"] == record[rotation.KEY_CHARS :] + rotation.drawn_key("10.1/new")


def test_a_sites_doi_that_now_leads_elsewhere_leaves_the_site_seen_but_without_a_panel_doi():
    sites = rotation.sites_after({"a.example": "10.1/a"}, ["10.1/a"], {"10.1/a": "b.example"})
    assert sites == {"a.example": None, "b.example": "10.1/a"}
    assert rotation.panel_of(sites, ["10.1/a"], {"10.1/a"}) == ["10.1/a"]


def test_rotating_rounds_pruned_after_each_export_keep_every_pairs_first_and_last_seen():
    # Half the prefix's DOIs are on b.example until it moves, silently, to c.example before the third round.
    world = {f"10.1/{n}": "a.example" if n % 2 else "b.example" for n in range(60)}
    moved = {doi: "c.example" if domain == "b.example" else domain for doi, domain in world.items()}
    rng, store, every_visit, published, pruned = random.Random(11), {}, [], None, 0
    doc = prefix_doc(Prefix("crossref", "7", "10.1", 60), LISTED)
    for day in (1, 8, 15, 22, 29):
        before, visited = set(store), len(every_visit)
        doc, _ = _round(doc, world if day < 15 else moved, day, 10, rng, every_visit)
        for visit in map(_stored, every_visit[visited:]):
            store[snapshot_id(visit)] = visit
        aggregate = Aggregate()
        for doc_id in sorted(store):
            aggregate.add(store[doc_id])
        published = aggregate.artifacts() if published is None else merge(published, aggregate.artifacts())
        assert set(store) > before
        by_doi: dict[str, dict] = {}
        for doc_id, visit in store.items():
            by_doi.setdefault(visit["pid/doi"], {})[doc_id] = visit
        for docs in by_doi.values():
            for doc_id in doi_to_drop(docs, docs, keep_last=1):
                del store[doc_id]
                pruned += 1
    truth: dict[tuple[str, str], list[str]] = {}
    for visit in every_visit:
        for key in (("10.1", ""), ("10.1", visit["snapshot/final-url-domain"])):
            truth.setdefault(key, []).append(visit["snapshot/timestamp"])
    assert pruned > 0 and {key[1] for key in truth} == {"", "a.example", "b.example", "c.example"}
    assert published.seen == {(p, d, min(times), max(times)) for (p, d), times in truth.items()}


def _stored(visit: dict) -> dict:
    """A visit as a stored analysis: with its prefix, registry, driver and resource URL."""
    return {
        **visit,
        "pid/doi-prefix": "10.1",
        "pid/ra": "crossref",
        "snapshot/driver": "http",
        "snapshot/resource-url": f"https://{visit['snapshot/final-url-domain']}/",
    }
