"""Benchmark `scrapy match` on a batch of landing-page URLs through a sandbox: inputs/s and peak RSS.

    .venv/bin/python bench/matcher.py [--dois 10000] [--inputs 10000] [--seed 1]

Generates a world, crawls it once with doi_sampler for the artifacts, then matches --inputs URLs taken from
truth.jsonl (final URLs of reachable pages, cycled with junk appended: /abstract, tracking parameters) as a
user would: `scrapy match -i FILE` in a subprocess under /usr/bin/time. `--no-fetch` on the same batch is the
baseline (Handle API and Crossref lookups only), run in the same session.
"""

import argparse
import json
import re
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from landing_dev.sandbox.generator import generate  # noqa: E402
from landing_dev.sandbox.server import RunningSandbox  # noqa: E402

PROJECT = Path(__file__).resolve().parents[1]
JUNK = ("", "/abstract", "?utm_source=twitter&utm_medium=social", "#references")


def _scrapy(args, stores, proxy):
    command = [
        "/usr/bin/time",
        "-f",
        "PEAK_RSS_KB=%M",
        sys.executable,
        "-m",
        "scrapy",
        *args,
        "-s",
        f"LANDING_SANDBOX={proxy}",
        "-s",
        f"LANDING_DOCS=sqlite:///{stores / 'landing.db'}",
        "-s",
        f"LANDING_BLOBS=file://{stores / 'blobs'}",
        "-s",
        f"LANDING_ARTIFACTS_DIR={stores / 'artifacts'}",
        "-s",
        "TELNETCONSOLE_ENABLED=False",
    ]
    started = time.monotonic()
    done = subprocess.run(command, cwd=PROJECT, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"{' '.join(args)} failed:\n{done.stderr[-2000:]}")
    return done, time.monotonic() - started, int(re.search(r"PEAK_RSS_KB=(\d+)", done.stderr).group(1))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dois", type=int, default=10000)
    parser.add_argument("--inputs", type=int, default=10000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        world, stores = Path(tmp) / "world", Path(tmp) / "stores"
        print(f"generating a {args.dois:,}-DOI world (seed {args.seed}) ...", flush=True)
        generate(world, args.dois, seed=args.seed)
        proxy = RunningSandbox(world).proxy
        _, seconds, _ = _scrapy(["crawl", "doi_sampler", "-s", "LOG_LEVEL=WARNING"], stores, proxy)
        print(f"sampler crawl for the artifacts: {seconds:.1f} s", flush=True)
        pages = [t["final_url"] for t in map(json.loads, open(world / "truth.jsonl")) if t["final_url"]]
        inputs = [pages[i % len(pages)] + JUNK[(i // len(pages)) % len(JUNK)] for i in range(args.inputs)]
        batch = Path(tmp) / "inputs.txt"
        batch.write_text("\n".join(inputs) + "\n")
        print(f"{'variant':22} {'inputs':>7} {'seconds':>8} {'inputs/s':>9} {'peak RSS':>9}  results by method")
        for name, extra in (("match --no-fetch", ["--no-fetch"]), ("match (default)", [])):
            done, seconds, peak = _scrapy(["match", "-i", str(batch), *extra], stores, proxy)
            results = [json.loads(line) for line in done.stdout.splitlines()]
            methods = Counter(r["method"] or "no match" for r in results)
            print(
                f"{name:22} {len(results):7,} {seconds:8.1f} {len(results) / seconds:9.1f} {peak / 1024:6.0f} MB  "
                + ", ".join(f"{k} {v:,}" for k, v in methods.most_common()),
                flush=True,
            )


if __name__ == "__main__":
    main()
