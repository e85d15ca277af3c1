"""The worlds the benchmarks crawl: generated with `scrapy sandbox generate` as a user does, or reused."""

import random
import subprocess
import sys
import time
from pathlib import Path

from landing.core.sampling.sample_sizes import sample_size
from landing_dev.runner import PROJECT, scrapy_command
from landing_dev.sandbox.world import World


def sized_world(root: Path, size: int) -> Path:
    """The size-DOI world (seed 1) under root, generated unless it is there already."""
    world = root / f"w{size}"
    if not (world / "truth.jsonl").exists():
        print(f"generating a {size:,}-DOI world ...", flush=True)
        subprocess.run(
            scrapy_command("sandbox", "generate", world, "--dois", size, "--seed", 1),
            cwd=PROJECT,
            check=True,
            capture_output=True,
        )
    return world


def full_world(directory: Path, owners: int, seed: int) -> float | None:
    """Generate the owners= world unless directory already holds one; the seconds it took, or None if reused."""
    if (directory / "world.json").exists():
        return None
    print(f"generating a {owners:,}-owner world (seed {seed}) in {directory} ...", flush=True)
    started = time.monotonic()
    done = subprocess.run(
        scrapy_command("sandbox", "generate", directory, "--owners", owners, "--seed", seed),
        cwd=PROJECT,
        capture_output=True,
        text=True,
    )
    if done.returncode:
        sys.exit(f"generate failed ({done.returncode}):\n{done.stderr[-2000:]}")
    print(done.stdout.strip(), flush=True)
    return time.monotonic() - started


def shape(directory: Path, minimum: int, maximum: int, seed: int) -> dict:
    """Owners, DOIs, hosts and sample sizes of a world, and the owners in a random plan order."""
    world = World(directory)
    owners = [("crossref", m) for m in world.members] + [("datacite", c) for c in world.clients]
    counts = {key: world.count(*key) for key in owners}
    largest = {ra: max((n for (r, _), n in counts.items() if r == ra), default=0) for ra in ("crossref", "datacite")}
    sizes = {key: sample_size(n, largest[key[0]], minimum, maximum) for key, n in counts.items()}
    hosts = {key.split("/", 3)[2] for (key,) in world.db.execute("select key from route")}
    world.close()
    random.Random(seed).shuffle(owners)
    return {
        "members": len(world.members),
        "clients": len(world.clients),
        "dois": sum(counts.values()),
        "hosts": len(hosts),
        "sample": sum(sizes.values()),
        "order": owners,
        "sizes": sizes,
    }


def plan(directory: Path, world: dict, n: int) -> list[str]:
    """n DOIs as the crawl takes them: owner after owner in plan order, each owner's sample (its first DOIs)."""
    w, dois = World(directory), []
    for ra, owner in world["order"]:
        if len(dois) >= n:
            break
        dois += [r["doi"] for r in w.page(ra, owner, rows=world["sizes"][(ra, owner)])]
    w.close()
    return dois[:n]
