"""Score `scrapy match` on the real inputs: a URL/DOI vectors file and a landing-page corpus, through a sandbox
serving both, verified against an artifact the sampler made of that world: right / wrong / none per kind, and
`scrapy match --evaluate FILE`'s tables (per method x verification, per verification level) for each.

    .venv/bin/python -m bench.vectors [--vectors CORPUS/url-doi-vectors/dev.jsonl]
        [--corpus CORPUS/landing-pages | none] [--shape friendly|elsewhere]
        [--no-fetch | --fetch-all] [--no-artifact] [--json] [--service]

The world is landing_dev/sandbox/vectors.py's: with `--shape friendly` each vector's DOI resolves to the page at its
URL, which states it (the page-only rows measure plumbing); with `--shape elsewhere` each page-only vector's DOI
resolves to another page (of the same host, or a publisher's for an aggregator's record), and a trap beside each
(kind `page-trap`) names that DOI on another work's page. The corpus' real pages are served at their page URLs, their
DOIs registered there, untitled. `scrapy crawl doi_sampler` (default settings, the http/browser choice included)
crawls that world first, and its artifact is the one the matcher verifies against, under the default fetch policy
(`--fetch-all`: every URL fetched; `--no-artifact`: no crawl, no artifact, as a plumbing check). A wrong DOI at
`confirmed-domain-prefix` or stronger is a bug: each is printed with its checks and evidence.
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

from landing.core.matching.cascade import NOT_FETCHED
from landing.core.matching.readings import VERIFICATIONS
from landing.match.labelled import read_labelled
from landing_dev.runner import PROJECT, Stores, crawl, scrapy_command
from landing_dev.sandbox.corpus import FOLDER
from landing_dev.sandbox.server import RunningSandbox
from landing_dev.sandbox.vectors import build, read_vectors

CORPUS = FOLDER / "landing-pages"
STRONG = VERIFICATIONS[: VERIFICATIONS.index("confirmed-domain-prefix") + 1]  # a consumer's confirmed levels


def comparable(answer: dict) -> dict:
    """An answer without its attempts' request counts, which depend on what a process's cache already held."""
    strip = lambda attempts: [{k: v for k, v in a.items() if k != "requests"} for a in attempts]  # noqa: E731
    found = {**answer, "evidence": strip(answer["evidence"])}
    if "matches" in answer:
        found["matches"] = [comparable(m) for m in answer["matches"]]
    return found


def over_http(inputs: Path, settings: list[str], log: Path, fetch: str | None) -> list[dict]:
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
        body = "".join(json.dumps({"q": q, "fetch": fetch} if fetch else q) + "\n" for q in lines)
        request = urllib.request.Request(found.group(1) + "/match", data=body.encode(), method="POST")
        with urllib.request.urlopen(request, timeout=1800) as response:
            return [json.loads(line) for line in response.read().decode().splitlines()]
    finally:
        serve.send_signal(signal.SIGTERM)
        serve.wait(60)


def artifact_crawl(proxy: str, root: Path, quiet: bool = False) -> Path:
    """The sampler's crawl of the served world, with the default settings; its artifacts folder. Says how much of
    the world it sampled: every DOI of so small a world (its largest owner has fewer than LANDING_SAMPLE_MAX)."""
    stores = Stores.under(root)
    root.mkdir(parents=True, exist_ok=True)
    code, seconds, log = crawl(proxy, stores, root / "crawl.log", {"LANDING_MAILTO": "bench@example.org"})
    if code != 0:
        sys.exit(f"the sampler's crawl failed ({code}):\n{log[-3000:]}")
    last = [line for line in log.splitlines() if "progress:" in line][-1:]
    print(
        f"artifact: `scrapy crawl doi_sampler` in {seconds:.0f} s; {last[0].split('progress: ', 1)[1] if last else '?'}",
        file=sys.stderr if quiet else sys.stdout,  # --json prints its JSON alone
    )
    return stores.artifacts


def evaluated(labelled: Path, settings: list[str], options: list[str]) -> str:
    """`scrapy match --evaluate FILE`'s tables, and its lines about wrong DOIs and rows skipped."""
    command = scrapy_command("match", "--evaluate", labelled, *options) + settings
    done = subprocess.run(command, cwd=PROJECT, capture_output=True, text=True, timeout=1800)
    if done.returncode != 0:
        sys.exit(f"scrapy match --evaluate {labelled} failed:\n{done.stderr[-3000:]}")
    said = [line for line in done.stderr.splitlines() if line.startswith("match: ") and "inputs" not in line]
    return "\n".join([*said, done.stdout.strip()])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vectors", default=str(FOLDER / "url-doi-vectors" / "dev.jsonl"))
    parser.add_argument(
        "--corpus",
        default=str(CORPUS) if CORPUS.is_dir() else "none",
        help=f"a landing-page corpus folder whose pages join the world and are scored (default: {CORPUS} when "
        "present; none: the vectors only)",
    )
    parser.add_argument(
        "--shape",
        choices=("friendly", "elsewhere"),
        default="friendly",
        help="where page-only vectors' DOIs resolve (friendly: to the vector's URL)",
    )
    fetching = parser.add_mutually_exclusive_group()
    fetching.add_argument("--no-fetch", action="store_true", help="match without fetching pages")
    fetching.add_argument(
        "--fetch-all", action="store_true", help="fetch every URL, not only on the artifact's domains"
    )
    parser.add_argument(
        "--no-artifact", action="store_true", help="no crawl: match without an artifact (domain verifications off)"
    )
    parser.add_argument("--json", action="store_true", help="print only {kind: {right, wrong, none}} as JSON")
    parser.add_argument(
        "--service", action="store_true", help="also POST the inputs to `scrapy serve` and compare its answers"
    )
    args = parser.parse_args()
    corpus = None if args.corpus == "none" else Path(args.corpus)
    options = ["--no-fetch"] if args.no_fetch else ["--fetch-all"] if args.fetch_all else []
    rows = read_vectors(args.vectors)
    with tempfile.TemporaryDirectory() as tmp:
        world, inputs, labelled = Path(tmp) / "world", Path(tmp) / "inputs.txt", Path(tmp) / "vectors.jsonl"
        rows = build(rows, world, args.shape, corpus)
        labelled.write_text("".join(json.dumps({"url": r["url"], "doi": r.get("doi")}) + "\n" for r in rows))
        pages = list(read_labelled(corpus).pairs) if corpus else []
        kinds = [row.get("kind", "?") for row in rows] + ["corpus-page" if d else "corpus-no-doi" for _, d in pages]
        expected = [(row.get("doi") or "").lower() or None for row in rows] + [d for _, d in pages]
        texts = [row["url"] for row in rows] + [page for page, _ in pages]
        # One input per line: a vector whose text holds a line break would be two inputs.
        inputs.write_text("".join(" ".join(text.split()) + "\n" for text in texts), encoding="utf-8")
        sandbox = RunningSandbox(world)
        try:
            artifacts = Path(tmp) if args.no_artifact else artifact_crawl(sandbox.proxy, Path(tmp) / "store", args.json)
            settings = ["-s", f"LANDING_SANDBOX={sandbox.proxy}", "-s", f"LANDING_ARTIFACTS_DIR={artifacts}"]
            settings += ["-s", "TELNETCONSOLE_ENABLED=False"]
            command = scrapy_command("match", "-i", inputs) + settings + options
            done = subprocess.run(command, cwd=PROJECT, capture_output=True, text=True, timeout=1800)
            if done.returncode != 0:
                sys.exit(f"scrapy match failed:\n{done.stderr[-3000:]}")
            tables = {}
            if not args.json:
                tables["vectors"] = evaluated(labelled, settings, options)
                if corpus:
                    tables["corpus"] = evaluated(corpus, settings, options)
            served = None
            if args.service:
                fetch = "none" if args.no_fetch else "all" if args.fetch_all else None
                served = over_http(inputs, settings, Path(tmp) / "serve.log", fetch)
        finally:
            sandbox.close()
    results = [json.loads(line) for line in done.stdout.splitlines()]
    if len(results) != len(texts):
        sys.exit(f"{len(texts)} inputs, {len(results)} results:\n{done.stderr[-3000:]}")
    tally = {}
    for text, kind, doi, result in zip(texts, kinds, expected, results):
        got = result["doi"]
        outcome = "right" if got == doi else ("none" if got is None else "wrong")
        tally.setdefault(kind, Counter())[outcome] += 1
        if outcome != "right" and not args.json:
            print(
                f"{outcome:5} {kind:13} {text[:90]!r} expected {doi} got {got}"
                f" ({result['method']}/{result['verification']} {result.get('checks', [])})"
            )
            if outcome == "wrong" and result["verification"] in STRONG:
                print(f"      a wrong DOI at a confirmed level: evidence {json.dumps(result['evidence'])}")
    if served is not None:
        differ = [n for n, (a, b) in enumerate(zip(results, served)) if comparable(a) != comparable(b)]
        print(
            f"over HTTP (`scrapy serve`, POST /match): {len(results) - len(differ)} of {len(results)} answers identical"
        )
        for n in differ:
            print(
                f"  differs: {texts[n][:90]!r}\n    match: {comparable(results[n])}\n    serve: {comparable(served[n])}"
            )
    if args.json:
        print(json.dumps({kind: dict(counts) for kind, counts in tally.items()}))
        return
    levels = Counter(m["verification"] for r in results for m in [r, *r.get("matches", [])] if m["verification"])
    strays = {v: n for v, n in levels.items() if v not in VERIFICATIONS}
    print(f"\nverification values outside the seven: {strays or 'none'}")
    gated = sum(any(a["outcome"] == NOT_FETCHED for a in result["evidence"]) for result in results)
    print(f"the domain gate kept {gated} of {len(results)} inputs from a fetch ({NOT_FETCHED!r})")
    print(f"\n{'kind':14} {'inputs':>6} {'right':>6} {'wrong':>6} {'none':>5}  share right")
    for kind, counts in sorted(tally.items()):
        total = sum(counts.values())
        print(
            f"{kind:14} {total:6} {counts['right']:6} {counts['wrong']:6} {counts['none']:5}  "
            f"{counts['right'] / total:.1%}"
        )
    for name, table in tables.items():
        print(f"\n`scrapy match --evaluate` on the {name}:\n{table}")


if __name__ == "__main__":
    main()
