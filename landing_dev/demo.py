"""`make demo` (and `make demo-s3`, snapshots in a local S3): generate a sandbox world, serve it, crawl it with
doi_sampler, and say what was found and where."""

import collections
import json
import os
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path

import boto3

from landing import settings as project_settings
from landing.artifacts.files import line_counts
from landing.config import chromium_usable
from landing.core.artifacts import current
from landing.stores import open_docs
from landing_dev import local_s3 as moto
from landing_dev.sandbox.generator import generate
from landing_dev.sandbox.scenarios import ALL
from landing_dev.sandbox.server import RunningSandbox

DATA = Path("data")
WORLD, DOIS, SEED = DATA / "world", 2000, 42
DOCS, BLOBS, ARTIFACTS = DATA / "landing.db", DATA / "blobs", DATA / "artifacts"
LOG = DATA / "demo-crawl.log"
S3_BUCKET = "landing-demo"


def _world():
    stamp = WORLD / "demo.json"
    wanted = {"dois": DOIS, "seed": SEED, "scenarios": sorted(ALL)}  # a changed generator means a new world
    if stamp.exists() and json.loads(stamp.read_text()) == wanted and (WORLD / "truth.jsonl").exists():
        print(f"demo: reusing the {DOIS:,}-DOI world in {WORLD}/ (seed {SEED})")
        return
    print(f"demo: generating a {DOIS:,}-DOI world in {WORLD}/ (seed {SEED}) ...", flush=True)
    stats = generate(WORLD, DOIS, seed=SEED)
    stamp.write_text(json.dumps(wanted))
    print(f"demo: {stats['members']} Crossref members, {stats['clients']} DataCite clients, {stats['hosts']} sites")


def _fresh_store():
    """The demo's counts are one run's: its documents and bodies start empty (artifacts stay, additive)."""
    for path in DATA.glob(DOCS.name + "*"):
        path.unlink()
    shutil.rmtree(BLOBS, ignore_errors=True)


def _crawl(proxy: str, blobs: str, env: dict) -> tuple[int, float]:
    """Run the crawl as a user would; show its progress lines; return (exit code, seconds)."""
    command = [
        sys.executable,
        "-m",
        "scrapy",
        "crawl",
        "doi_sampler",
        "-s",
        f"LANDING_SANDBOX={proxy}",
        "-s",
        f"LANDING_DOCS=sqlite:///{DOCS}",
        "-s",
        f"LANDING_BLOBS={blobs}",
        "-s",
        f"LANDING_ARTIFACTS_DIR={ARTIFACTS}",
        "-s",
        "TELNETCONSOLE_ENABLED=False",
    ]
    print("demo: crawling: " + " ".join(["scrapy", *command[3:]]), flush=True)
    started = time.monotonic()
    with open(LOG, "w") as log:
        crawl = subprocess.Popen(command, stderr=subprocess.PIPE, stdout=log, text=True, env={**os.environ, **env})
        for line in crawl.stderr:
            log.write(line)
            if "progress: " in line or " ERROR: " in line or "Artifacts exported" in line:
                print("  " + line.split("] ", 1)[-1].rstrip(), flush=True)
        code = crawl.wait()
    return code, time.monotonic() - started


def _summary(seconds: float, blobs: str):
    docs = open_docs(f"sqlite:///{DOCS}")
    analyses = list(docs.scan("analysis"))
    pids = docs.count("pid")
    docs.close()
    correctness, errors = collections.Counter(), collections.Counter()
    visited = list(current(analyses))  # a DOI that auto also sent to the browser counts once, by its better visit
    for doc in visited:
        if doc["snapshot/error"]:
            errors[doc["snapshot/error"]] += 1
        else:
            correctness[doc["analysis/meta-tag-correctness"]] += 1
    browser = [d for d in analyses if d["snapshot/driver"] == "browser"]
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    print(
        f"\ndemo: {pids:,} DOIs sampled, {len(visited):,} visited in {seconds:.1f} s "
        f"({len(visited) / seconds:.1f} DOIs/s, peak RSS of its largest process {peak:.0f} MB)"
    )
    if chromium_usable(project_settings.LANDING_CHROMIUM):
        print(
            f"demo: {len(browser):,} DOIs needed the browser (LANDING_DRIVER=auto); "
            f"{sum(1 for d in browser if not d['snapshot/error']):,} of them reached their page with it"
        )
    else:
        print(
            f"demo: no Chromium at {project_settings.LANDING_CHROMIUM}, so LANDING_DRIVER=auto worked as http "
            "(apt-get install chromium)"
        )
    print(
        "demo: pages reached, by meta-tag correctness: "
        + ", ".join(f"{k} {v:,}" for k, v in sorted(correctness.items()))
    )
    print("demo: failures, by class: " + ", ".join(f"{k} {v:,}" for k, v in errors.most_common()))
    print(
        f"demo: documents in {DOCS} (scrapy export pid|snapshot|analysis|report -o FILE.jsonl), "
        f"bodies in {blobs}, crawl log in {LOG}"
    )
    print(f"demo: artifacts in {ARTIFACTS}/ (every version under {ARTIFACTS}/versions/):")
    for name, lines in line_counts(ARTIFACTS).items():
        print(f"  {ARTIFACTS / name}: {lines:,} lines")
    report = ARTIFACTS / "report.html"
    if report.is_file():
        print(f"demo: the report, to open in a browser: {report.resolve()} (scrapy report -o FILE writes it again)")
    else:
        print(f"demo: no report at {report}: see the crawl log ({LOG}) for why it could not be drawn")


def main(argv=None) -> int:
    s3 = "--s3" in (sys.argv[1:] if argv is None else argv)
    DATA.mkdir(exist_ok=True)
    _world()
    _fresh_store()
    sandbox = RunningSandbox(WORLD)
    blobs, env, local_s3 = f"file://{BLOBS}", {}, None
    try:
        if s3:
            endpoint, local_s3 = moto.start()
            env = moto.environment(endpoint)
            blobs = f"s3://{moto.bucket(endpoint, S3_BUCKET)}/snapshots"
            print(f"demo: snapshots go to {blobs} on moto's S3 server at {endpoint} (AWS_ENDPOINT_URL)")
        code, seconds = _crawl(sandbox.proxy, blobs, env)
        if code == 0:
            _summary(seconds, blobs)
            if s3:
                print(f"demo: {_objects(env):,} objects under {blobs} (a body and its snapshot JSON per content hash)")
    finally:
        if local_s3:
            local_s3.terminate()
        sandbox.close()
    if code != 0:
        print(f"demo: the crawl failed (exit {code}); see {LOG}", file=sys.stderr)
    return code


def _objects(env: dict) -> int:
    client = boto3.client(
        "s3",
        endpoint_url=env["AWS_ENDPOINT_URL"],
        aws_access_key_id=env["AWS_ACCESS_KEY_ID"],
        aws_secret_access_key=env["AWS_SECRET_ACCESS_KEY"],
        region_name=env["AWS_DEFAULT_REGION"],
    )
    pages = client.get_paginator("list_objects_v2").paginate(Bucket=S3_BUCKET, Prefix="snapshots/")
    return sum(len(page.get("Contents", [])) for page in pages)


if __name__ == "__main__":
    sys.exit(main())
