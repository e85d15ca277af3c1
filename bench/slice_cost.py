"""Benchmark (not a test): what one slice of continuous mode costs to plan, at the registries' scale.

    .venv/bin/python -m bench.slice_cost [--owners 56000] [--seed 1] [--slices 10] [--keep]

Stores a `prefix` document for every prefix of the sandbox's full-shape owners (56,000 owners: 67,033 prefixes,
each owner's DOIs divided among its prefixes as a listing does, a panel of 10 DOIs each, last sampled within the
target age, 1% signalled) in a SQLite store, then times what each slice does with them (landing.sampler.continuous_planner):
read every known prefix (the store's scan, as the first slice does; then the ledger's copy), `freshness.plan` for an
hourly slice and `continuous.age_stats`, median and max of `--slices` slices; and the memory the ledger's copy of the
known prefixes holds (tracemalloc). docs/continuous.md "A slice's cost" has the figures.
"""

import argparse
import random
import statistics
import time
import tracemalloc
from datetime import UTC, datetime, timedelta

from bench.prefix_cost import owners_of
from bench.scratch import scratch
from landing import settings as defaults
from landing import tuning
from landing.core.continuous import freshness, schedule
from landing.core.sampling import runs
from landing.sampler.continuous_ledger import ContinuousLedger
from landing.sampler.ledger import Ledger
from landing.stores import open_docs

NOW = datetime(2030, 2, 1, tzinfo=UTC)
LISTED = "2030-01-01T00:00:00Z"


def store_prefixes(docs, owners: list[dict], seed: int, policy: freshness.Policy) -> int:
    rng = random.Random(seed)
    listing = [(o["ra"], o["id"], o["size"]) for o in owners]
    found = schedule.listed_prefixes(listing, {(o["ra"], o["id"]): o["listed"] for o in owners})
    target = freshness.target_days(policy)
    for (ra, prefix), held in found.items():
        owner, dois = next(iter(held.items()))
        sampled = NOW - timedelta(days=rng.uniform(0, target))
        signals = frozenset({freshness.DOMAIN_CHANGED}) if rng.random() < 0.01 else frozenset()
        known = freshness.Prefix(ra, owner, prefix, dois, sampled, signals)
        panel = [f"{prefix}/{n}" for n in range(min(dois, 10))]
        docs.put("prefix", freshness.prefix_id(ra, prefix), freshness.prefix_doc(known, LISTED, panel=panel))
    docs.flush()
    return len(found)


def timed(call) -> tuple[float, object]:
    started = time.perf_counter()
    result = call()
    return time.perf_counter() - started, result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--owners", type=int, default=56_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--slices", type=int, default=10)
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder (the store)")
    opts = parser.parse_args()
    policy = freshness.Policy(
        defaults.LANDING_REFRESH_DAYS,
        tuning.RECHECK_DAYS,
        defaults.LANDING_SAMPLE_MIN,
        defaults.LANDING_SAMPLE_MAX,
        tuning.CHANGED_DOIS,
    )
    budget = freshness.Budget(defaults.LANDING_BUDGET, tuning.REQUESTS_PER_DOI)
    with scratch("landing-slice-cost-", opts.keep) as tmp:
        docs = open_docs(f"sqlite:///{tmp / 'landing.db'}")
        try:
            count = store_prefixes(docs, owners_of(opts.owners, opts.seed), opts.seed, policy)
            print(f"{count:,} prefix documents stored")
            scan, _ = timed(lambda: [freshness.prefix_of(doc) for doc in docs.scan("prefix")])
            records = ContinuousLedger(Ledger(docs, runs.CONTINUOUS, ["crossref", "datacite"], 1, 1))
            tracemalloc.start()
            first, _ = timed(records.prefixes)
            held = tracemalloc.get_traced_memory()[0]
            tracemalloc.stop()
            print(
                f"every prefix read from the store: {scan:.2f} s; the ledger's copy: {first:.2f} s, {held / 2**20:.1f} MiB"
            )
            figures = {"prefixes": [], "plan": [], "age_stats": [], "slice": []}
            for n in range(opts.slices):
                now = NOW + timedelta(hours=n)
                read, known = timed(records.prefixes)
                planned, plan = timed(lambda k=known, t=now: freshness.plan(k, t, policy, budget, timedelta(hours=1)))
                aged, _ = timed(lambda k=known, t=now: schedule.age_stats(k, t))
                for name, value in zip(figures, (read, planned, aged, read + planned + aged)):
                    figures[name].append(value)
            print(f"per slice ({opts.slices} hourly slices, {len(plan.picks)} picks in the last):")
            for name, values in figures.items():
                print(f"  {name}: median {statistics.median(values) * 1000:.0f} ms, max {max(values) * 1000:.0f} ms")
        finally:
            docs.close()


if __name__ == "__main__":
    main()
