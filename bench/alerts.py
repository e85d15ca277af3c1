"""What the report's data beside a version and the publisher alerts cost at full shape: the time of the rebuild's one
pass (the Aggregate counts the reports, the artifacts and the member figures at once), the memory it holds, the time
and size of members.jsonl.gz, domains.jsonl.gz and the alerts written against a previous version.

    .venv/bin/python -m bench.alerts [--members 20000] [--dois 500000] [--seed 1]

The analyses are made in memory (the store's scan is the same with or without the figures, so it is left out):
member sizes long-tailed as the registries' are, 1 to 8 prefixes and 1 to 60 domains a member, some shared
platform hosts, a few per cent of failures and wrong meta tags. The second version moves 2% of the members' sites
and fails some more pages, so it has alerts to write on every kind. Times are this process's CPU seconds: the
machine may be shared.
"""

import argparse
import random
import tempfile
import time
from pathlib import Path

from landing.artifacts import artifact_files
from landing.core.publishing.aggregation import Aggregate
from landing.publish.report_data import ALERTS, ALERTS_CSV, DOMAINS, MEMBERS, write_beside

CLASSES = ("timeout", "http-4xx", "http-5xx", "robots", "not-html", "dns")


def _rss_mib() -> float:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * 4096 / 2**20


def analyses(args, moved: bool):
    rng = random.Random(args.seed)
    weights = [1 / (rank + 1) ** 1.1 for rank in range(args.members)]
    scale = args.dois / sum(weights)
    for rank in range(args.members):
        member = f"{rank * 7 + 1}"
        prefixes = [f"10.{10000 + rank * 8 + k}" for k in range(1 + rank % 8)]
        sites = [f"j{k}.m{rank}.example" for k in range(1 + rng.randrange(60) if rank < 2000 else 1 + rank % 3)]
        if rank % 10 == 0:
            sites.append(f"platform{rank % 40}.example")
        if moved and rank % 50 == 0:
            sites = [s.replace(".example", ".moved.example") for s in sites]
        for n in range(max(1, round(weights[rank] * scale))):
            doi = f"{prefixes[n % len(prefixes)]}/{n}"
            site, roll = sites[n % len(sites)], rng.random()
            error = rng.choice(CLASSES) if roll < (0.06 if moved else 0.04) else None
            correctness = None if error else ("ok" if roll < 0.9 else rng.choice(("missing", "incorrect", "conflict")))
            day = "2030-01-21" if moved else "2030-01-01"
            yield {
                "pid/doi": doi,
                "pid/doi-prefix": doi.split("/")[0],
                "pid/ra": "crossref",
                "pid/member-id": member,
                "pid/global-member-id": f"crossref/{member}",
                "pid/member-name": f"Press {rank}",
                "pid/timestamp": f"{day}T00:00:00Z",
                "snapshot/resource-url": f"https://{site}/{n}",
                "snapshot/final-url": f"https://{site}/{n}",
                "snapshot/final-url-domain": site,
                "snapshot/timestamp": f"{day}T00:00:00Z",
                "snapshot/error": error,
                "analysis/meta-tag-correctness": correctness,
                "analysis/meta-tags": [["citation_doi", doi]] if correctness else [],
                "analysis/doi-in-meta-tags": "non-url" if correctness == "ok" else None,
            }


def one_version(args, artifacts: Path, moved: bool) -> None:
    docs = list(analyses(args, moved))
    start_rss, started = _rss_mib(), time.process_time()
    aggregate = Aggregate()
    for doc in docs:
        aggregate.add(doc)
    took, held = time.process_time() - started, _rss_mib() - start_rss
    version = artifact_files.export(artifacts, aggregate.artifacts())
    started = time.process_time()
    written = write_beside(artifacts, version, aggregate)
    wrote = time.process_time() - started
    sizes = {name: (version / name).stat().st_size / 2**20 for name in (MEMBERS, DOMAINS, ALERTS, ALERTS_CSV)}
    print(
        f"{'second' if moved else 'first'} version: {len(docs):,} analyses, {written}; the pass {took:.1f} CPU s "
        f"(reports, artifacts and member figures at once); RSS the Aggregate holds ~{held:.0f} MiB; files written "
        f"in {wrote:.1f} s; " + ", ".join(f"{name} {size:.1f} MiB" for name, size in sizes.items())
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--members", type=int, default=20000)
    parser.add_argument("--dois", type=int, default=500000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as root:
        one_version(args, Path(root) / "artifacts", moved=False)
        one_version(args, Path(root) / "artifacts", moved=True)


if __name__ == "__main__":
    main()
