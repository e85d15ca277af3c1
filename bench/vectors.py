"""Score `scrapy match` on a URL/DOI vectors file through a sandbox serving them: right / wrong / none per kind,
and right / wrong per method x verification.

    .venv/bin/python bench/vectors.py [--vectors ../shared/corpus/url-doi-vectors/dev.jsonl] [--shape friendly]
                                      [--no-fetch] [--json]

The world is landing_dev/sandbox/vectors.py's, no artifact: with `--shape friendly` each vector's DOI resolves to
the page at its URL, which states it (the page-only rows measure plumbing); with `--shape elsewhere` each
page-only vector's DOI resolves to another page (of the same host, or a publisher's for an aggregator's record),
and a trap beside each (kind `page-trap`) names that DOI on another work's page. A wrong DOI anywhere is a bug.
"""

import argparse
import json
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

from landing.core.evaluation import render_table, tabulate
from landing_dev.runner import PROJECT, scrapy_command
from landing_dev.sandbox.server import RunningSandbox
from landing_dev.sandbox.vectors import build, read_vectors


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--vectors", default=str(PROJECT.parent / "shared" / "corpus" / "url-doi-vectors" / "dev.jsonl")
    )
    parser.add_argument(
        "--shape",
        choices=("friendly", "elsewhere"),
        default="friendly",
        help="where page-only vectors' DOIs resolve (friendly: to the vector's URL)",
    )
    parser.add_argument("--no-fetch", action="store_true", help="match without fetching pages")
    parser.add_argument("--json", action="store_true", help="print only {kind: {right, wrong, none}} as JSON")
    args = parser.parse_args()
    rows = read_vectors(args.vectors)
    with tempfile.TemporaryDirectory() as tmp:
        world, inputs = Path(tmp) / "world", Path(tmp) / "inputs.txt"
        rows = build(rows, world, args.shape)
        # One input per line: a vector whose text holds a line break would be two inputs.
        inputs.write_text("".join(" ".join(row["url"].split()) + "\n" for row in rows), encoding="utf-8")
        sandbox = RunningSandbox(world)
        try:
            command = scrapy_command("match", "-i", inputs)
            command += [
                "-s",
                f"LANDING_SANDBOX={sandbox.proxy}",
                "-s",
                f"LANDING_ARTIFACTS_DIR={tmp}",
                "-s",
                "TELNETCONSOLE_ENABLED=False",
                *(["--no-fetch"] if args.no_fetch else []),
            ]
            done = subprocess.run(command, cwd=PROJECT, capture_output=True, text=True, timeout=1800)
        finally:
            sandbox.close()
    if done.returncode != 0:
        sys.exit(f"scrapy match failed:\n{done.stderr[-3000:]}")
    results = [json.loads(line) for line in done.stdout.splitlines()]
    if len(results) != len(rows):
        sys.exit(f"{len(rows)} vectors, {len(results)} results:\n{done.stderr[-3000:]}")
    tally = {}
    for row, result in zip(rows, results):
        expected, got = (row.get("doi") or "").lower() or None, result["doi"]
        outcome = "right" if got == expected else ("none" if got is None else "wrong")
        tally.setdefault(row.get("kind", "?"), Counter())[outcome] += 1
        if outcome != "right" and not args.json:
            print(
                f"{outcome:5} {row.get('kind', '?'):11} {row['url'][:90]!r} expected {expected} got {got}"
                f" ({result['method']}/{result['verification']})"
            )
    if args.json:
        print(json.dumps({kind: dict(counts) for kind, counts in tally.items()}))
        return
    print(f"\n{'kind':12} {'vectors':>7} {'right':>6} {'wrong':>6} {'none':>5}  share right")
    for kind, counts in sorted(tally.items()):
        total = sum(counts.values())
        print(
            f"{kind:12} {total:7} {counts['right']:6} {counts['wrong']:6} {counts['none']:5}  "
            f"{counts['right'] / total:.1%}"
        )
    print()
    print(
        render_table(tabulate((row.get("doi") or "", result) for row, result in zip(rows, results) if row.get("doi")))
    )


if __name__ == "__main__":
    main()
