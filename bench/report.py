"""What drawing the report directory costs at full shape: a SQLite store holding a full run's analyses (~20,000
members, ~130,000 report keys), published twice (so members have a trend and alerts exist), then the draw as an
export runs it (`python -m landing.publish`, a child process): its time and peak RSS, the size of index.html and of
the whole directory, and the time Chromium takes to open the index, the largest member's page, and the all-members
and all-domains pages (their hub, with the find box, and their first table page).

    .venv/bin/python -m bench.report [--members 20000] [--dois 500000] [--seed 1] [--keep DIR [--redraw]]

`--redraw` draws again the latest version kept in DIR by an earlier run (its report directory removed first).

The analyses are bench/alerts.py's: member sizes long-tailed as the registries' are, 1 to 8 prefixes and 1 to 60
domains a member, shared platform hosts, a few per cent of failures and wrong meta tags; the second version moves
2% of the members' sites.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.alerts import analyses
from landing.artifacts import artifact_files
from landing.core.pages import documents
from landing.core.publishing.report_figures import figures
from landing.publish import FIGURES, publish
from landing.stores import open_docs


def _fill(docs, args, moved: bool) -> int:
    count = 0
    for doc in analyses(args, moved):
        doc = {**doc, "snapshot/driver": "http"}
        docs.put("analysis", documents.analysis_id(doc), doc)
        count += 1
    docs.flush()
    return count


# The export's child (`python -m landing.publish ARTIFACTS VERSION`), saying its own peak RSS as it ends: the
# getrusage of a child also counts the parent's pages it was forked with.
CHILD = (
    "import runpy, sys\n"
    "sys.argv = ['landing.publish', *sys.argv[1:]]\n"
    "try:\n"
    "    runpy.run_module('landing.publish', run_name='__main__')\n"
    "finally:\n"
    "    print(next(line for line in open('/proc/self/status') if line.startswith('VmHWM')), file=sys.stderr)\n"
)


def _draw(artifacts: Path, version: Path) -> tuple[float, float]:
    """(seconds, peak RSS in MiB) of drawing a version's report as an export does."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(artifacts), version.name], capture_output=True, text=True, env=env
    )
    took = time.perf_counter() - started
    if done.returncode:
        sys.exit(f"the report could not be drawn: {done.stderr[-2000:]}")
    return took, int(done.stderr.split("VmHWM:")[1].split()[0]) / 1024


def _size(path: Path) -> tuple[int, float]:
    files = [p for p in path.rglob("*") if p.is_file()]
    return len(files), sum(p.stat().st_size for p in files) / 2**20


def _opened(paths: list[Path]) -> list[float]:
    """Seconds Chromium takes to load each page (navigation start to the load event), the second of two loads."""
    from playwright.sync_api import sync_playwright

    from tests.browser.probe import CHROMIUM

    took = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=["--no-sandbox"])
        page = browser.new_page()
        for path in paths:
            for _ in range(2):  # the first warms the browser's process; the second is what a reader waits
                page.goto(path.as_uri())
            took.append(page.evaluate("() => performance.getEntriesByType('navigation')[0].loadEventEnd / 1000"))
        browser.close()
    return took


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--members", type=int, default=20000)
    parser.add_argument("--dois", type=int, default=500000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--keep", type=Path, help="keep the store and artifacts here (default: a temporary folder)")
    parser.add_argument("--redraw", action="store_true", help="only draw the latest version kept in --keep again")
    args = parser.parse_args()
    root = args.keep or Path(tempfile.mkdtemp(prefix="bench-report-"))
    try:
        docs = open_docs(f"sqlite:///{root / 'landing.db'}", batch_docs=5000)
        for moved in () if args.redraw else (False, True):
            started = time.perf_counter()
            n = _fill(docs, args, moved)
            filled = time.perf_counter() - started
            started = time.perf_counter()
            summary = publish(docs, root / "artifacts", report=False)
            print(
                f"version {2 if moved else 1}: {n:,} analyses stored in {filled:.0f} s; published (no report) in "
                f"{time.perf_counter() - started:.0f} s: {summary['reports']:,} report keys, {summary['members']:,} "
                f"members, {summary['domains']:,} domains, {summary['alerts']:,} alerts"
            )
        found = {**figures(docs.scan("report")), "run": None}
        docs.close()
        version = artifact_files.versions(root / "artifacts")[-1]
        shutil.rmtree(version / "report", ignore_errors=True)
        (version / FIGURES).write_text(json.dumps(found, sort_keys=True) + "\n", encoding="utf-8")
        took, rss = _draw(root / "artifacts", version)
        count, mib = _size(version / "report")
        disk = sum(p.stat().st_blocks * 512 for p in (version / "report").rglob("*")) / 2**20
        index = (version / "report" / "index.html").stat().st_size / 2**10
        print(
            f"draw (python -m landing.publish: the version's directory, linked at the top): {took:.1f} s, peak RSS "
            f"{rss:.0f} MiB; index.html {index:.0f} KiB; the directory {count:,} files, {mib:.0f} MiB ({disk:.0f} "
            "MiB on disk)"
        )
        report = version / "report"
        largest = max((report / "members").glob("*.html"), key=lambda p: p.stat().st_size)
        every = [report / name for name in ("members.html", "members-1.html", "domains.html", "domains-1.html")]
        index_s, member_s, *every_s = _opened([report / "index.html", largest, *every])
        print(
            f"Chromium: index.html loads in {index_s:.2f} s; the largest member page ({largest.name}, "
            f"{largest.stat().st_size / 2**10:.0f} KiB) in {member_s:.2f} s; "
            + "; ".join(f"{p.name} ({p.stat().st_size / 2**10:,.0f} KiB) {s:.2f} s" for p, s in zip(every, every_s))
            + "; the find files: "
            + ", ".join(f"{p.name} {p.stat().st_size / 2**10:,.0f} KiB" for p in sorted(report.glob("*-find.js")))
        )
    finally:
        if not args.keep:
            shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
