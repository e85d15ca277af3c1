"""Score `scrapy match` on a URL/DOI vectors file through a sandbox serving them: right / wrong / none per kind,
and right / wrong per method x verification.

    .venv/bin/python bench/vectors.py [--vectors ../shared/corpus/url-doi-vectors/dev.jsonl] [--shape friendly]
                                      [--no-fetch] [--json] [--service]

The world is landing_dev/sandbox/vectors.py's, no artifact, so every URL is fetched (LANDING_MATCH_FETCH=all): with
`--shape friendly` each vector's DOI resolves to the page at its URL, which states it (the page-only rows measure
plumbing); with `--shape elsewhere` each page-only vector's DOI resolves to another page (of the same host, or a
publisher's for an aggregator's record), and a trap beside each (kind `page-trap`) names that DOI on another work's
page. A wrong DOI anywhere is a bug.
With `--service` the same inputs are also POSTed to `scrapy serve` on the same world and settings, and each answer
is compared with `scrapy match`'s, the attempts' request counts set aside (they depend on what a cache held).
"""

import argparse
import json
import re
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections import Counter
from pathlib import Path

from landing.core.evaluation import render_table, tabulate
from landing_dev.runner import PROJECT, scrapy_command
from landing_dev.sandbox.server import RunningSandbox
from landing_dev.sandbox.vectors import build, read_vectors


def comparable(answer: dict) -> dict:
    """An answer without its attempts' request counts, which depend on what a process's cache already held."""
    strip = lambda attempts: [{k: v for k, v in a.items() if k != "requests"} for a in attempts]  # noqa: E731
    found = {**answer, "evidence": strip(answer["evidence"])}
    if "matches" in answer:
        found["matches"] = [comparable(m) for m in answer["matches"]]
    return found


def over_http(inputs: Path, settings: list[str], log: Path, no_fetch: bool) -> list[dict]:
    """The inputs' answers from `scrapy serve` on the same settings, POSTed as JSON lines, in input order."""
    serve = subprocess.Popen(
        scrapy_command("serve", "--port", 0) + settings,
        cwd=PROJECT,
        stderr=open(log, "w"),
        text=True,  # noqa: SIM115
    )
    try:
        deadline = time.monotonic() + 120
        while not (found := re.search(r"Serving on (http://\S+)", log.read_text())):
            if serve.poll() is not None or time.monotonic() > deadline:
                sys.exit(f"`scrapy serve` did not start:\n{log.read_text()[-3000:]}")
            time.sleep(0.1)
        lines = inputs.read_text(encoding="utf-8").splitlines()
        body = "".join(json.dumps({"q": q, "fetch": "none"} if no_fetch else q) + "\n" for q in lines)
        request = urllib.request.Request(found.group(1) + "/match", data=body.encode(), method="POST")
        with urllib.request.urlopen(request, timeout=1800) as response:
            return [json.loads(line) for line in response.read().decode().splitlines()]
    finally:
        serve.send_signal(signal.SIGTERM)
        serve.wait(60)


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
    parser.add_argument(
        "--service", action="store_true", help="also POST the inputs to `scrapy serve` and compare its answers"
    )
    args = parser.parse_args()
    rows = read_vectors(args.vectors)
    with tempfile.TemporaryDirectory() as tmp:
        world, inputs = Path(tmp) / "world", Path(tmp) / "inputs.txt"
        rows = build(rows, world, args.shape)
        # One input per line: a vector whose text holds a line break would be two inputs.
        inputs.write_text("".join(" ".join(row["url"].split()) + "\n" for row in rows), encoding="utf-8")
        sandbox = RunningSandbox(world)
        try:
            settings = ["-s", f"LANDING_SANDBOX={sandbox.proxy}", "-s", f"LANDING_ARTIFACTS_DIR={tmp}"]
            settings += ["-s", "TELNETCONSOLE_ENABLED=False"]
            # No artifact lists the world's hosts: every URL is fetched (`scrapy match --fetch-all`, the service's too).
            settings += ["-s", "LANDING_MATCH_FETCH=all"]
            command = scrapy_command("match", "-i", inputs) + settings + (["--no-fetch"] if args.no_fetch else [])
            done = subprocess.run(command, cwd=PROJECT, capture_output=True, text=True, timeout=1800)
            served = None
            if args.service and done.returncode == 0:
                served = over_http(inputs, settings, Path(tmp) / "serve.log", args.no_fetch)
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
    if served is not None:
        differ = [n for n, (a, b) in enumerate(zip(results, served)) if comparable(a) != comparable(b)]
        print(
            f"over HTTP (`scrapy serve`, POST /match): {len(results) - len(differ)} of {len(results)} answers identical"
        )
        for n in differ:
            print(
                f"  differs: {rows[n]['url'][:90]!r}\n    match: {comparable(results[n])}\n    serve: {comparable(served[n])}"
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
