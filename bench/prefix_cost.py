"""Benchmark (not a test): what per-prefix sampling costs a full run, on the sandbox's full-shape owners.

    .venv/bin/python bench/prefix_cost.py [--owners 56000] [--seed 1] [--per-prefix 0,1,3,5]

Builds the owners `scrapy sandbox generate --owners N` builds (sizes, prefixes and each prefix's share of the
owner's DOIs: landing_dev.sandbox.generator), without writing their DOIs, and plans a run of them
(landing.core.sampling.runs.plan at the project's LANDING_SAMPLE_MIN/MAX) for each --per-prefix value. For each it
draws every owner's member-wide sample from its DOIs' prefixes (the size the API is asked for: its budget, at
most the API's largest sample), finds the prefixes left short (landing.core.sampling.sample_sizes.short_prefixes) and counts
what the crawl would ask and visit: API sample requests, DOIs planned (the budget), and DOIs sampled. Also how
many listed prefixes end with no sampled DOI, which is what the floor is for.
"""

import argparse
import random
from collections import Counter

from landing import settings as defaults
from landing.core.registries import crossref, datacite
from landing.core.sampling import runs, sample_sizes
from landing_dev.sandbox.owners import FULL_OWNERS, full_owners, more_prefixes, pick_prefix


def owners_of(count: int, seed: int) -> list[dict]:
    """The full-shape owners of `generate(owners=count, seed=seed)`, each with its size and prefix weights."""
    rng, taken = random.Random(seed), set()
    members, clients, sizes = full_owners(rng, count, taken)
    more_prefixes(random.Random(seed + 1), members + clients, sizes, taken)
    return [
        {**owner, "size": size, "listed": owner["prefixes"] + owner["more"]}
        for owner, size in zip(members + clients, sizes)
    ]


def dois_of(owner: dict, rng) -> list[str]:
    """The owner's DOIs as prefix/n, under its prefixes in the generator's proportions."""
    return [f"{pick_prefix(rng, rng, owner)}/{n}" for n in range(owner["size"])]


def cost(owners: list[dict], per_prefix: int, seed: int) -> dict:
    rng = random.Random(seed)
    listing = [(owner["ra"], owner["id"], owner["size"]) for owner in owners]
    prefixes = {(owner["ra"], owner["id"]): owner["listed"] for owner in owners}
    by_id = {(owner["ra"], owner["id"]): owner for owner in owners}
    plan = runs.plan("cost", listing, defaults.LANDING_SAMPLE_MIN, defaults.LANDING_SAMPLE_MAX, prefixes, per_prefix)
    tally = Counter()
    for sample in plan:
        owner = by_id[(sample["sample/ra"], sample["sample/owner"])]
        dois = dois_of(owner, rng)
        largest = crossref.MAX_SAMPLE if owner["ra"] == "crossref" else datacite.MAX_SAMPLE
        member = rng.sample(dois, min(sample["sample/size"], largest, len(dois)))
        short = sample_sizes.short_prefixes(member, owner["listed"], per_prefix)
        topped = {
            prefix: rng.sample(pool, min(len(pool), per_prefix + have))
            for prefix, have in short.items()
            for pool in [[d for d in dois if d.startswith(prefix + "/")]]
        }
        sampled = sample_sizes.compose(member, topped, owner["listed"], per_prefix, sample["sample/size"])
        present = {sample_sizes.prefix_of(doi) for doi in dois}
        tally.update(
            planned=sample["sample/size"],
            sampled=len(sampled),
            requests=1 + len(short),
            prefixes=len(present),
            missed=len(present - {sample_sizes.prefix_of(d) for d in sampled}),
        )
    return tally


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--owners", type=int, default=FULL_OWNERS)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--per-prefix", default="0,1,3,5")
    args = parser.parse_args()
    owners = owners_of(args.owners, args.seed)
    listed = Counter(len(owner["listed"]) for owner in owners)
    print(
        f"{len(owners):,} owners, {sum(o['size'] for o in owners):,} DOIs, {sum(listed.elements()):,} prefixes; "
        f"owners by prefixes held: {dict(sorted(listed.items()))}"
    )
    print(
        f"{'per prefix':>10} {'DOIs planned':>13} {'DOIs sampled':>13} {'API samples':>12} "
        f"{'prefixes with DOIs':>19} {'of them unsampled':>18}"
    )
    base = None
    for per_prefix in (int(n) for n in args.per_prefix.split(",")):
        t = cost(owners, per_prefix, args.seed)
        base = base or t
        print(
            f"{per_prefix:>10} {t['planned']:>13,} {t['sampled']:>13,} {t['requests']:>12,} {t['prefixes']:>19,} "
            f"{t['missed']:>18,}   (+{t['sampled'] / base['sampled'] - 1:.1%} DOIs, "
            f"+{t['requests'] / base['requests'] - 1:.1%} API samples)",
            flush=True,
        )


if __name__ == "__main__":
    main()
