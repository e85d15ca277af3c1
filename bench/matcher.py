"""Benchmark `scrapy match` on a batch of landing-page URLs through a sandbox: inputs/s and peak RSS.

    .venv/bin/python -m bench.matcher [--dois 10000] [--inputs 10000] [--seed 1]

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

from landing_dev import runner
from landing_dev.sandbox.generator import generate
from landing_dev.sandbox.server import RunningSandbox

JUNK = ("", "/abstract", "?utm_source=twitter&utm_medium=social", "#references")


def _match(args, stores: runner.Stores, proxy):
    """`scrapy match ARGS` on the stores under /usr/bin/time; (its run, seconds, peak RSS in KB)."""
    command = runner.scrapy_command(
        "match", *args, settings={**stores.as_settings(), "LANDING_SANDBOX": proxy, "TELNETCONSOLE_ENABLED": False}
    )
    started = time.monotonic()
    done = subprocess.run(
        ["/usr/bin/time", "-f", "PEAK_RSS_KB=%M", *command], cwd=runner.PROJECT, capture_output=True, text=True
    )
    if done.returncode != 0:
        sys.exit(f"match {' '.join(args)} failed:\n{done.stderr[-2000:]}")
    return done, time.monotonic() - started, int(re.search(r"PEAK_RSS_KB=(\d+)", done.stderr).group(1))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dois", type=int, default=10000)
    parser.add_argument("--inputs", type=int, default=10000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        world, stores = Path(tmp) / "world", runner.Stores.under(Path(tmp) / "stores")
        print(f"generating a {args.dois:,}-DOI world (seed {args.seed}) ...", flush=True)
        generate(world, args.dois, seed=args.seed)
        proxy = RunningSandbox(world).proxy
        code, seconds, log = runner.crawl(proxy, stores, Path(tmp) / "crawl.log", {"LOG_LEVEL": "WARNING"})
        if code != 0:
            sys.exit(f"the sampler crawl failed:\n{log[-2000:]}")
        print(f"sampler crawl for the artifacts: {seconds:.1f} s", flush=True)
        pages = [t["final_url"] for t in map(json.loads, open(world / "truth.jsonl")) if t["final_url"]]
        inputs = [pages[i % len(pages)] + JUNK[(i // len(pages)) % len(JUNK)] for i in range(args.inputs)]
        batch = Path(tmp) / "inputs.txt"
        batch.write_text("\n".join(inputs) + "\n")
        print(f"{'variant':22} {'inputs':>7} {'seconds':>8} {'inputs/s':>9} {'peak RSS':>9}  results by method")
        for name, extra in (("match --no-fetch", ["--no-fetch"]), ("match (default)", [])):
            done, seconds, peak = _match(["-i", batch, *extra], stores, proxy)
            results = [json.loads(line) for line in done.stdout.splitlines()]
            methods = Counter(r["method"] or "no match" for r in results)
            print(
                f"{name:22} {len(results):7,} {seconds:8.1f} {len(results) / seconds:9.1f} {peak / 1024:6.0f} MB  "
                + ", ".join(f"{k} {v:,}" for k, v in methods.most_common()),
                flush=True,
            )


if __name__ == "__main__":
    main()
