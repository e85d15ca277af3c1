"""What the last look before a run finishes costs: Ledger.unvisited (every sampled DOI without a visit) on a SQLite
store holding a whole run, every DOI visited but `--missing` of them.

    .venv/bin/python bench/finish_check.py [--owners 5000] [--per-owner 100] [--missing 10]
"""

import argparse
import random
import tempfile
import time
from pathlib import Path

from landing.core.sampling import runs
from landing.sampler.ledger import Ledger
from landing.stores import open_docs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--owners", type=int, default=5000)
    parser.add_argument("--per-owner", type=int, default=100)
    parser.add_argument("--missing", type=int, default=10)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        docs = open_docs(f"sqlite:///{Path(folder) / 'landing.db'}")
        ledger = Ledger(docs, "auto", ["crossref"], args.per_owner, args.per_owner)
        run, _ = ledger.open("2026-11-25T00:00:00Z")
        owners = [("crossref", str(n), args.per_owner) for n in range(args.owners)]
        run = ledger.store_plan(run, owners, True, "2026-11-25T00:00:00Z")
        total = args.owners * args.per_owner
        skipped = set(random.Random(1).sample(range(total), args.missing))
        started = time.perf_counter()
        for sample in list(docs.scan("sample")):
            order = sample["sample/order"]
            dois = [f"10.{order}/{rank}" for rank in range(sample["sample/size"])]
            docs.put("sample", runs.sample_id(run["run/id"], order), runs.sampled(sample, dois, "t"))
            for rank, doi in enumerate(dois):
                if order * args.per_owner + rank not in skipped:
                    visit = runs.visit_doc(run["run/id"], order, rank, doi, "snapshot")
                    docs.put("visit", runs.visit_id(run["run/id"], order, rank), visit)
        docs.flush()
        print(
            f"store: {args.owners:,} owners, {total:,} DOIs, {total - len(skipped):,} visits written in "
            f"{time.perf_counter() - started:.1f} s"
        )
        started = time.perf_counter()
        missing = ledger.unvisited(run)
        print(f"Ledger.unvisited: {len(missing):,} DOIs without a visit found in {time.perf_counter() - started:.2f} s")


if __name__ == "__main__":
    main()
