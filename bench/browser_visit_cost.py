"""Benchmark (not a test): Chromium's CPU seconds per browser visit, for several binaries or launch arguments.

    .venv/bin/python -m bench.browser_visit_cost [--world DIR] [--visits 40] [--rounds 2] [--pages 4]
                                                 [--variant NAME=BINARY[,EXTRA_ARG...] ...]

Serves --world (a bench/scaling.py world, default /tmp/h7/w100000) with `scrapy sandbox serve`, picks --visits of
its DOIs that need a browser (truth.jsonl: a plain client fails, the browser lands; challenges, script redirects,
computed links, in turn) and visits them as the browser driver does: Playwright, the launch options and ARGS of
landing.browser.driver, one context per visit (service workers blocked), `load` then at most
LANDING_BROWSER_SETTLE for network quiet, --pages visits at once. Each --variant runs once per round, rounds
alternating A B A B. Per run: the CPU seconds of the Chromium process tree (reaped renderers included, through
their parents' children times) from before the first visit to after the last, divided by the visits; a warm-up
visit after launch is not counted. Last, per variant the median over rounds and the pages read alike (final URL).
"""

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import psutil

from landing import settings as defaults
from landing.browser.driver import ARGS, chromium_env
from landing_dev.runner import SandboxProcess

KINDS = ("challenge", "js-redirect", "js-computed")


def browser_urls(world: Path, count: int) -> list[str]:
    """count resource URLs of DOIs only a browser lands on, the KINDS in turn."""
    by_kind = {kind: [] for kind in KINDS}
    with open(world / "truth.jsonl") as lines:
        for line in lines:
            row = json.loads(line)
            if row["scenario"] in by_kind and row["error"] and not row["browser_error"]:
                by_kind[row["scenario"]].append(row["resource_url"])
    picked = []
    for n in range(count):
        kind = by_kind[KINDS[n % len(KINDS)]]
        picked.append(kind[n // len(KINDS)])
    return picked


def tree_cpu(root: psutil.Process) -> float:
    """CPU seconds of root and its descendants, living or reaped."""
    total = 0.0
    for member in [root, *root.children(recursive=True)]:
        try:
            times = member.cpu_times()
        except psutil.Error:
            continue
        total += times.user + times.system + times.children_user + times.children_system
    return total


def chromium_of(binary: str) -> psutil.Process:
    """The browser process Playwright's driver started (under this process): Chromium's, not one of its children's.
    Debian's /usr/bin names are scripts that exec Chromium under /usr/lib/chromium."""
    for child in psutil.Process().children(recursive=True):
        try:
            if child.exe().startswith("/usr/lib/chromium/") and not any("--type=" in a for a in child.cmdline()):
                return child
        except psutil.Error:
            continue
    sys.exit(f"no Chromium process of {binary} under this process")


async def visit(browser, url: str, settle_ms: float) -> str:
    context = await browser.new_context(service_workers="block", ignore_https_errors=True)
    try:
        page = await context.new_page()
        try:
            await page.goto(url, wait_until="load", timeout=30000)
            await page.wait_for_load_state("networkidle", timeout=settle_ms)
        except Exception:  # a page that never goes quiet is read as it is, as driver.settle does
            pass
        return page.url
    finally:
        await context.close()


async def run(binary: str, extra: list[str], urls: list[str], proxy: str, pages: int, settle_ms: float) -> tuple:
    from playwright.async_api import async_playwright

    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(
            executable_path=binary,
            headless=True,
            args=ARGS + extra,
            env=chromium_env(os.environ),
            chromium_sandbox=os.geteuid() != 0,
            proxy={"server": proxy},
        )
        chromium = chromium_of(binary)
        await visit(browser, urls[0], settle_ms)  # warm-up: the first renderer, caches
        queue, finals = asyncio.Queue(), {}
        for url in urls:
            queue.put_nowait(url)

        async def worker():
            while not queue.empty():
                url = queue.get_nowait()
                finals[url] = await visit(browser, url, settle_ms)

        before, started = tree_cpu(chromium), time.monotonic()
        await asyncio.gather(*(worker() for _ in range(pages)))
        cpu, seconds = tree_cpu(chromium) - before, time.monotonic() - started
        await browser.close()
    return cpu / len(urls), seconds, finals


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--world", type=Path, default=Path("/tmp/h7/w100000"))
    parser.add_argument("--visits", type=int, default=40)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--pages", type=int, default=4, help="visits at once")
    parser.add_argument(
        "--variant",
        action="append",
        metavar="NAME=BINARY[,ARG...]",
        help="a binary and extra arguments (repeatable); default: /usr/bin/chromium and /usr/bin/chromium-headless-shell",
    )
    opts = parser.parse_args()
    variants = {}
    for spec in opts.variant or ["chromium=/usr/bin/chromium", "headless-shell=/usr/bin/chromium-headless-shell"]:
        name, _, rest = spec.partition("=")
        binary, *extra = rest.split(",")
        if not os.access(binary, os.X_OK):
            sys.exit(f"--variant {spec}: {binary} is not an executable")
        variants[name] = (binary, extra)
    urls = browser_urls(opts.world, opts.visits)
    settle_ms = defaults.LANDING_BROWSER_SETTLE * 1000
    log = Path(tempfile.mkdtemp(prefix="browser-visit-cost-")) / "sandbox.log"
    server = SandboxProcess(opts.world, 0, log)
    proxy = server.proxy
    per = {name: [] for name in variants}
    landed = {}
    try:
        for round_ in range(opts.rounds):
            for name, (binary, extra) in variants.items():
                cpu, seconds, finals = asyncio.run(run(binary, extra, urls, proxy, opts.pages, settle_ms))
                per[name].append(cpu)
                landed.setdefault(name, finals)
                print(f"round {round_ + 1} {name}: {cpu:.3f} s CPU/visit, {seconds:.1f} s wall", flush=True)
    finally:
        server.close()
    first = next(iter(landed.values()))
    for name, runs in per.items():
        alike = sum(landed[name][url] == first[url] for url in urls)
        print(f"{name}: median {statistics.median(runs):.3f} s CPU/visit; {alike}/{len(urls)} final URLs alike")


if __name__ == "__main__":
    main()
