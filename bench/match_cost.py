"""What one long input costs `scrapy match`: seconds and peak RSS per input kind and size, to show linear growth.

    .venv/bin/python bench/match_cost.py [--sizes 40000,80000,160000,1000000] [--kinds pdf-url,...] [--fetch]

Each input is one line of the given size (characters), matched alone by `scrapy match -i FILE` (`--no-fetch`, or
`--fetch-all` with --fetch) in a subprocess under /usr/bin/time, through a sandbox world where 10.99004/abc is
registered. Printed per kind and size: the matcher's own seconds (its closing line: the crawl, without Python's
start-up), the process's wall seconds and peak RSS, and the result's DOI, requests and evidence records; a
one-character input first gives what any input costs (the crawl's start), to subtract. The kinds are issue 29's:
"""

import argparse
import json
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from landing_dev.runner import PROJECT, scrapy_command
from landing_dev.sandbox.server import RunningSandbox

DOI = "10.99004/abc"
# kind -> (head, unit): the line is head + unit repeated to the size.
KINDS = {
    "pdf-url": (f"https://x.example/{DOI}", ".pdf"),  # a URL's DOI followed by a tail, repeated
    "version-url": (f"https://x.example/{DOI}", "v9"),  # ... by a version, repeated
    "doi-junk": (f"{DOI}?x=", ".pdf"),  # a DOI with junk after it: cut as text
    "urls-text": ("", "http://a.b/ "),  # free text: one URL, repeated
    "dois-text": ("", None),  # free text: distinct DOIs, a Handle API request each
}
__doc__ += "".join(f"\n    {kind}: {head!r} + {unit!r} repeated" for kind, (head, unit) in KINDS.items())


def line(kind: str, size: int) -> str:
    head, unit = KINDS[kind]
    if unit is None:
        words, total, n = [], 0, 0
        while total < size:
            words.append(f"10.99004/d{n}")
            total, n = total + len(words[-1]) + 1, n + 1
        return " ".join(words)[:size]
    return (head + unit * (size // len(unit) + 1))[:size]


def world(directory: Path):
    (directory / "world.json").write_text(
        json.dumps(
            {"format": "landing-sandbox/1", "members": [{"id": "1", "primary-name": "Cost", "prefixes": ["10.99004"]}]}
        )
    )
    record = {"doi": DOI, "ra": "crossref", "member": "1", "url": f"https://x.example/{DOI}"}
    (directory / "dois.jsonl").write_text(json.dumps(record) + "\n")


def measure(kind: str, size: int, tmp: Path, proxy: str, fetch: bool) -> dict:
    source = tmp / f"{kind}-{size}.txt"
    source.write_text(line(kind, size) + "\n", encoding="utf-8")
    command = ["/usr/bin/time", "-f", "PEAK_RSS_KB=%M", *scrapy_command("match", "-i", source)]
    command += ["--fetch-all"] if fetch else ["--no-fetch"]  # no artifact: the gate would keep every page unfetched
    command += [
        "-s",
        f"LANDING_SANDBOX={proxy}",
        "-s",
        f"LANDING_ARTIFACTS_DIR={tmp}",
        "-s",
        "TELNETCONSOLE_ENABLED=False",
    ]
    started = time.monotonic()
    done = subprocess.run(command, cwd=PROJECT, capture_output=True, text=True, timeout=3600)
    wall = time.monotonic() - started
    source.unlink()
    if done.returncode != 0:
        sys.exit(f"{kind} {size}: scrapy match failed:\n{done.stderr[-2000:]}")
    (result,) = [json.loads(out) for out in done.stdout.splitlines()]
    return {
        "kind": kind,
        "size": size,
        "seconds": float(re.search(r"match: 1 inputs in ([\d.]+) s", done.stderr)[1]),
        "wall": wall,
        "peak_mb": int(re.search(r"PEAK_RSS_KB=(\d+)", done.stderr)[1]) / 1024,
        "doi": result["doi"],
        "requests": sum(e["requests"] for e in result["evidence"]),
        "evidence": len(result["evidence"]),
        "traceback": "Traceback" in done.stderr,
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="40000,80000,160000,1000000", help="characters per line, comma-separated")
    parser.add_argument("--kinds", default=",".join(KINDS), help=f"comma-separated, of {', '.join(KINDS)}")
    parser.add_argument("--fetch", action="store_true", help="let the matcher fetch pages (default: --no-fetch)")
    args = parser.parse_args()
    sizes, kinds = [int(s) for s in args.sizes.split(",")], args.kinds.split(",")
    unknown = set(kinds) - set(KINDS)
    if unknown:
        sys.exit(f"unknown kinds {sorted(unknown)}: use {', '.join(KINDS)}")
    print(
        "| kind | characters | matcher s | wall s | peak RSS MB | DOI | requests | evidence |\n"
        "|---|---:|---:|---:|---:|---|---:|---:|"
    )
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        (tmp / "world").mkdir()
        world(tmp / "world")
        sandbox = RunningSandbox(tmp / "world")
        try:
            base = measure("urls-text", 1, tmp, sandbox.proxy, args.fetch)  # one character: the crawl's own start
            print(
                f"| (one character) | 1 | {base['seconds']:.1f} | {base['wall']:.1f} | {base['peak_mb']:.0f} | - | 0 | 0 |"
            )
            for kind in kinds:
                for size in sizes:
                    row = measure(kind, size, tmp, sandbox.proxy, args.fetch)
                    print(
                        f"| {kind} | {size:,} | {row['seconds']:.1f} | {row['wall']:.1f} | {row['peak_mb']:.0f} | "
                        f"{row['doi'] or '-'} | {row['requests']} | {row['evidence']}"
                        + (" | TRACEBACK" if row["traceback"] else "")
                        + " |",
                        flush=True,
                    )
        finally:
            sandbox.close()


if __name__ == "__main__":
    main()
