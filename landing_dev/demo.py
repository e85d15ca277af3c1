"""`make demo` (and `make demo-s3`, snapshots in a local S3): generate a sandbox world, serve it, crawl it with
doi_sampler, and say what was found, where it is, and what to run next.

The demo keeps its own store under data/demo/: `scrapy crawl`'s default store (data/landing.db, data/blobs) is
never touched.
"""

import argparse
import collections
import json
import re
import resource
import shutil
import sys
from pathlib import Path

import boto3

from landing import settings as project_settings
from landing.artifacts.artifact_files import line_counts
from landing.config import chromium_usable
from landing.core.publishing.current_analysis import current
from landing.core.web.failures import BROWSER_CLASSES
from landing.stores import open_docs
from landing.stores.file_blobs import FileBlobStore
from landing.stores.s3 import S3BlobStore
from landing_dev import local_s3 as moto
from landing_dev import runner
from landing_dev.sandbox.generator import generate
from landing_dev.sandbox.scenarios import ALL
from landing_dev.sandbox.server import RunningSandbox

DATA = Path("data")
WORLD, DOIS, SEED = DATA / "world", 2000, 42
DEMO = DATA / "demo"
DOCS, BLOBS, ARTIFACTS = DEMO / "landing.db", DEMO / "blobs", DEMO / "artifacts"
LOG = DEMO / "crawl.log"
S3_BUCKET = "landing-demo"
PORT = 8700  # the port the next steps serve the world on again
URL = re.compile(r"https?://[^\s>'\"]+")


def _world(dois: int):
    stamp = WORLD / "demo.json"
    wanted = {"dois": dois, "seed": SEED, "scenarios": sorted(ALL)}  # a changed generator means a new world
    if stamp.exists() and json.loads(stamp.read_text()) == wanted and (WORLD / "truth.jsonl").exists():
        print(f"demo: reusing the {dois:,}-DOI world in {WORLD}/ (seed {SEED})")
        return
    print(f"demo: generating a {dois:,}-DOI world in {WORLD}/ (seed {SEED}) ...", flush=True)
    stats = generate(WORLD, dois, seed=SEED)
    stamp.write_text(json.dumps(wanted))
    print(f"demo: {stats['members']} Crossref members, {stats['clients']} DataCite clients, {stats['hosts']} sites")


def planted(truth: dict, browser: bool) -> str | None:
    """The failure the world plants for a DOI: the cookie-keeping client's class, or, for a page only a browser
    reaches, the browser's when the crawl has one (None: the DOI reaches its page)."""
    error = truth["cookie_error"]
    return truth["browser_error"] if browser and error in BROWSER_CLASSES else error


def _truth(browser: bool) -> dict:
    """DOI (lower case) -> (planted failure class or None, the URLs of its chain)."""
    found = {}
    with open(WORLD / "truth.jsonl") as lines:
        for t in map(json.loads, lines):
            urls = {hop["url"] for hop in t["urls"]} | {t["resource_url"], t["end_url"], t["final_url"]} - {None}
            found[t["doi"].lower()] = (planted(t, browser), urls)
    return found


def _fresh_store():
    """The demo's counts are one run's: its documents and bodies start empty (artifacts stay, additive)."""
    old = sorted(str(p) for p in [*DEMO.glob(DOCS.name + "*"), BLOBS] if p.exists())
    if old:
        print(f"demo: emptying the previous demo's store first: {', '.join(old)} (its artifacts stay: they add up)")
    for path in DEMO.glob(DOCS.name + "*"):
        path.unlink()
    shutil.rmtree(BLOBS, ignore_errors=True)


def _crawl(proxy: str, blobs: str, env: dict, planted_urls: set) -> tuple[int, float]:
    """Run the crawl as a user would; show its progress lines, each ERROR line said planted or not; return
    (exit code, seconds)."""

    def show(line: str):
        shown = line.split("] ", 1)[-1].rstrip()
        if " ERROR: " in line:
            mark = "planted" if set(URL.findall(line)) & planted_urls else "NOT planted"
            print(f"  ({mark}) {shown}", flush=True)
        elif "progress: " in line or "Artifacts exported" in line:
            print("  " + shown, flush=True)

    stores = runner.Stores(f"sqlite:///{DOCS}", blobs, ARTIFACTS)
    print("demo: crawling: " + " ".join(["scrapy", *runner.crawl_command(proxy, stores)[3:]]), flush=True)
    # Run where the demo runs: its paths are relative, as the next steps it prints are.
    code, seconds, _ = runner.crawl(proxy, stores, LOG, env=env, cwd=None, on_line=show)
    return code, seconds


def _summary(seconds: float, blobs: str, truth: dict, browser: bool) -> str | None:
    """Print what the crawl found; return a final URL it reached, for the next steps."""
    docs = open_docs(f"sqlite:///{DOCS}")
    analyses = list(docs.scan("analysis"))
    pids = docs.count("pid")
    docs.close()
    correctness, errors, unplanted = collections.Counter(), collections.Counter(), []
    visited = list(current(analyses))  # a DOI that auto also sent to the browser counts once, by its better visit
    for doc in visited:
        if doc["snapshot/error"]:
            errors[doc["snapshot/error"]] += 1
            if truth.get(doc["pid/doi"].lower(), (None,))[0] is None:
                unplanted.append(f"{doc['pid/doi']} {doc['snapshot/error']}")
        else:
            correctness[doc["analysis/meta-tag-correctness"]] += 1
    sent = [d for d in analyses if d["snapshot/driver"] == "browser"]
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    why = (
        f": the sampler takes a sample of each owner in proportion to its DOIs ({project_settings.LANDING_SAMPLE_MIN} "
        f"to {project_settings.LANDING_SAMPLE_MAX} each, at least {project_settings.LANDING_SAMPLE_MIN_PER_PREFIX} per "
        "listed prefix), not every DOI"
    )
    print(f"\ndemo: {pids:,} DOIs sampled of the world's {len(truth):,}" + (why if pids < len(truth) else ""))
    print(
        f"demo: {len(visited):,} visited in {seconds:.1f} s ({len(visited) / seconds:.1f} DOIs/s, peak RSS of its "
        f"largest process {peak:.0f} MB)"
    )
    if browser:
        print(
            f"demo: {len(sent):,} DOIs needed the browser (LANDING_DRIVER=auto); "
            f"{sum(1 for d in sent if not d['snapshot/error']):,} of them reached their page with it"
        )
    else:
        print(
            f"demo: no Chromium at {project_settings.LANDING_CHROMIUM}, so LANDING_DRIVER=auto worked as http "
            "(apt-get install chromium-headless-shell)"
        )
    print(
        "demo: pages reached, by meta-tag correctness: "
        + ", ".join(f"{k} {v:,}" for k, v in sorted(correctness.items()))
    )
    failed = sum(errors.values())
    print(f"demo: {failed:,} failures, by class: " + ", ".join(f"{k} {v:,}" for k, v in errors.most_common()))
    if unplanted:
        print(f"demo: {len(unplanted):,} of them NOT planted by the world: " + "; ".join(unplanted[:10]))
    else:
        print("demo: every one of them planted by the world (its truth.jsonl names a failure for each DOI)")
    print(f"demo: documents in {DOCS}, bodies in {blobs}, crawl log in {LOG}")
    print(f"demo: artifacts in {ARTIFACTS}/ (every version under {ARTIFACTS}/versions/):")
    for name, lines in line_counts(ARTIFACTS).items():
        print(f"  {ARTIFACTS / name}: {lines:,} lines")
    report = ARTIFACTS / "report" / "index.html"
    if report.is_file():
        print(f"demo: the report, to open in a browser: {report.resolve()}")
    else:
        print(f"demo: no report at {report}: see the crawl log ({LOG}) for why it could not be drawn")
    return next((d["snapshot/final-url"] for d in visited if not d["snapshot/error"]), None)


def _next_steps(example: str | None):
    stores = f"-s LANDING_DOCS=sqlite:///{DOCS} -s LANDING_ARTIFACTS_DIR={ARTIFACTS}"
    sandbox = f"-s LANDING_SANDBOX=http://127.0.0.1:{PORT}"
    print(
        "\ndemo: next steps. The demo's sandbox has stopped: serve the world again, in another terminal, and name it "
        "to every command that goes to the network (without LANDING_SANDBOX they would ask the real doi.org and "
        "publishers):\n"
        f"  .venv/bin/scrapy sandbox serve {WORLD} --port {PORT}\n"
        f"  .venv/bin/scrapy match {sandbox} {stores} '{example or 'URL'}'   # a landing page back to its DOI\n"
        f"  .venv/bin/scrapy match --evaluate {sandbox} {stores}   # every page the crawl reached, scored\n"
        "Offline, on the demo's store:\n"
        f"  .venv/bin/scrapy export analysis -o - {stores}\n"
        f"  .venv/bin/scrapy report -o report {stores}"
    )


def _keep_s3_bodies(env: dict, blobs: str) -> int:
    """Copy the bodies out of moto's server, which keeps them in memory only, into BLOBS; the count copied."""
    client = boto3.client(
        "s3",
        endpoint_url=env["AWS_ENDPOINT_URL"],
        aws_access_key_id=env["AWS_ACCESS_KEY_ID"],
        aws_secret_access_key=env["AWS_SECRET_ACCESS_KEY"],
        region_name=env["AWS_DEFAULT_REGION"],
    )
    copied = 0
    with S3BlobStore(S3_BUCKET, "snapshots", client=client) as s3, FileBlobStore(BLOBS) as files:
        for key in s3.keys():
            copied += files.put(key, s3.get(key))
    print(
        f"demo: moto's S3 server keeps objects in memory only and stops with the demo: its {copied:,} objects "
        f"under {blobs} were copied to {BLOBS}/, so that the store's snapshots keep their bodies; read them with "
        f"-s LANDING_BLOBS=file://{BLOBS} (e.g. scrapy analyze -s LANDING_DOCS=sqlite:///{DOCS} "
        f"-s LANDING_BLOBS=file://{BLOBS})"
    )
    return copied


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m landing_dev.demo", description=__doc__.split("\n\n")[0])
    parser.add_argument("--s3", action="store_true", help="snapshots in a local S3 (moto's server)")
    parser.add_argument("--dois", type=int, default=DOIS, help=f"DOIs in the world (default {DOIS:,})")
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    DEMO.mkdir(parents=True, exist_ok=True)
    WORLD.mkdir(parents=True, exist_ok=True)
    print(
        f"demo: the demo's store is {DEMO}/ (documents, bodies, artifacts, crawl log); scrapy crawl's default "
        "store (data/landing.db, data/blobs, data/artifacts) is not touched"
    )
    _world(args.dois)
    browser = chromium_usable(project_settings.LANDING_CHROMIUM)
    truth = _truth(browser)
    failing = collections.Counter(error for error, _ in truth.values() if error)
    print(
        f"demo: the world plants failures in {sum(failing.values()):,} of its {len(truth):,} DOIs ({', '.join(f'{k} {v}' for k, v in failing.most_common())}"
        "): the crawl's ERROR lines for those it samples are expected, and marked (planted)"
    )
    _fresh_store()
    sandbox = RunningSandbox(WORLD)
    blobs, env, local_s3 = f"file://{BLOBS}", {}, None
    try:
        if args.s3:
            endpoint, local_s3 = moto.start()
            env = moto.environment(endpoint)
            blobs = f"s3://{moto.bucket(endpoint, S3_BUCKET)}/snapshots"
            print(f"demo: snapshots go to {blobs} on moto's S3 server at {endpoint} (AWS_ENDPOINT_URL)")
        urls = set().union(*(chain for error, chain in truth.values() if error))
        code, seconds = _crawl(sandbox.proxy, blobs, env, urls)
        if code == 0:
            example = _summary(seconds, blobs, truth, browser)
            if args.s3:
                _keep_s3_bodies(env, blobs)
            _next_steps(example)
    finally:
        if local_s3:
            local_s3.terminate()
        sandbox.close()
    if code != 0:
        print(f"demo: the crawl failed (exit {code}); see {LOG}", file=sys.stderr)
    return code


if __name__ == "__main__":
    sys.exit(main())
