"""Benchmark (not a test): Chromium's CPU seconds per browser visit, for several binaries, launch arguments or
ways of holding browser contexts.

    .venv/bin/python -m bench.browser_visit_cost [--world DIR] [--visits 40] [--rounds 2] [--pages 4]
                                                 [--variant NAME=BINARY[,ARG...] ...] [--contexts pooled,fresh]

Serves --world (a bench/scaling.py world, default /tmp/h7/w100000) with `scrapy sandbox serve`, picks --visits of
its DOIs that need a browser (truth.jsonl: a plain client fails, the browser lands; challenges, script redirects,
computed links, in turn) and visits them as the browser driver does: Playwright, the launch options, ARGS and launcher
script of landing.browser.driver (a variant's ARG adds a switch to them, `drop:SWITCH` takes one of them away), each visit in a context of its own (service workers blocked), `load` then at most
TUNING_BROWSER_SETTLE for network quiet, --pages visits at once. --contexts: `pooled` (the driver's: --pages
contexts lent in turn and emptied between visits, landing.browser.contexts) and/or `fresh` (a new context per
visit, closed after it). Each variant (--variant x --contexts) runs once per round, rounds alternating A B A B.
Per run: the CPU seconds of the Chromium process tree (reaped renderers included, through their parents' children
times) from before the first visit to after the last, divided by the visits, and the same of Playwright's driver
process alone; a warm-up visit after launch is not counted; and the tree's peak PSS, read after each visit. Last,
per variant the medians over rounds and the pages read alike (final URL).
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
from landing import tuning
from landing.browser.contexts import Contexts
from landing.browser.driver import ARGS, Navigation, chromium_env, launcher
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


def launch_args(extra: list[str]) -> list[str]:
    """The driver's ARGS with a variant's: `drop:SWITCH` removes SWITCH, any other is added.

    >>> launch_args(["drop:--disable-gpu", "--jitless"]).count("--disable-gpu"), launch_args(["--jitless"])[-1]
    (0, '--jitless')
    """
    dropped = {arg.removeprefix("drop:") for arg in extra if arg.startswith("drop:")}
    return [arg for arg in ARGS if arg not in dropped] + [arg for arg in extra if not arg.startswith("drop:")]


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


class Held:
    """Browser contexts as the driver holds them (pooled: scrapy-playwright's, by name, from Contexts) or fresh."""

    def __init__(self, browser, pooled: bool, pages: int):
        self.browser, self.pool, self.named = browser, Contexts(pages) if pooled else None, {}

    async def new_page(self, meta: dict):
        if self.pool is None:
            context = await self.browser.new_context(service_workers="block", ignore_https_errors=True)
            return await context.new_page()
        name = await self.pool.take(meta)
        if name not in self.named or self.named[name].is_closed():
            self.named[name] = await self.browser.new_context(service_workers="block", ignore_https_errors=True)
        return await self.named[name].new_page()

    async def end(self, meta: dict, page, navigation: Navigation) -> None:
        if self.pool is None:
            await page.context.close()
        else:
            await self.pool.end(meta, page, navigation.origins)


async def visit(held: Held, url: str, settle_ms: float) -> str:
    meta, navigation = {}, Navigation()
    page = await held.new_page(meta)
    page.on("response", navigation)
    try:
        await page.goto(url, wait_until="load", timeout=30000)
        await page.wait_for_load_state("networkidle", timeout=settle_ms)
    except Exception:  # a page that never goes quiet is read as it is, as driver.settle does
        pass
    final = page.url
    await held.end(meta, page, navigation)
    return final


def tree_pss(root: psutil.Process) -> float:
    """MB of proportional set size of root and its descendants."""
    total = 0
    for member in [root, *root.children(recursive=True)]:
        try:
            total += member.memory_full_info().pss
        except psutil.Error:
            continue
    return total / 2**20


def own_cpu(process: psutil.Process) -> float:
    times = process.cpu_times()
    return times.user + times.system


async def run(
    binary: str, extra: list[str], pooled: bool, urls: list[str], proxy: str, pages: int, settle_ms: float
) -> tuple:
    from playwright.async_api import async_playwright

    # Started as the handler starts it: through driver.launcher's script (each switch once), at the crawl's priority.
    wrapper = tempfile.TemporaryDirectory(prefix="landing-chromium-")
    script = Path(wrapper.name) / "chromium"
    script.write_text(launcher(binary, 0, None, None))
    script.chmod(0o700)
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(
            executable_path=str(script),
            headless=True,
            args=launch_args(extra),
            env=chromium_env(os.environ),
            chromium_sandbox=os.geteuid() != 0,
            proxy={"server": proxy},
        )
        chromium = chromium_of(binary)
        driver = next(p for p in psutil.Process().children() if "run-driver" in p.cmdline())  # Playwright's node
        held = Held(browser, pooled, pages)
        await visit(held, urls[0], settle_ms)  # warm-up: the first renderer, caches
        queue, finals, peak = asyncio.Queue(), {}, [0.0]
        for url in urls:
            queue.put_nowait(url)

        async def worker():
            while not queue.empty():
                url = queue.get_nowait()
                finals[url] = await visit(held, url, settle_ms)
                peak[0] = max(peak[0], tree_pss(chromium))

        before, driving, started = tree_cpu(chromium), own_cpu(driver), time.monotonic()
        await asyncio.gather(*(worker() for _ in range(pages)))
        cpu, seconds = tree_cpu(chromium) - before, time.monotonic() - started
        driving = own_cpu(driver) - driving
        await browser.close()
    wrapper.cleanup()
    return cpu / len(urls), driving / len(urls), seconds, peak[0], finals


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
        help="a binary and switches added, or taken away from the driver's as drop:SWITCH (repeatable); default: "
        f"headless-shell={defaults.LANDING_CHROMIUM}",
    )
    parser.add_argument(
        "--contexts", default="pooled", help="pooled and/or fresh, comma-separated: how visits get contexts"
    )
    opts = parser.parse_args()
    holds = opts.contexts.split(",")
    if not holds or set(holds) - {"pooled", "fresh"}:
        sys.exit(f"--contexts {opts.contexts}: give pooled, fresh or both, comma-separated")
    variants = {}
    for spec in opts.variant or [f"headless-shell={defaults.LANDING_CHROMIUM}"]:
        name, _, rest = spec.partition("=")
        binary, *extra = rest.split(",")
        if not os.access(binary, os.X_OK):
            sys.exit(f"--variant {spec}: {binary} is not an executable")
        for hold in holds:
            variants[f"{name} {hold}" if len(holds) > 1 else name] = (binary, extra, hold == "pooled")
    urls = browser_urls(opts.world, opts.visits)
    settle_ms = tuning.BROWSER_SETTLE * 1000
    log = Path(tempfile.mkdtemp(prefix="browser-visit-cost-")) / "sandbox.log"
    server = SandboxProcess(opts.world, 0, log)
    proxy = server.proxy
    per = {name: [] for name in variants}
    landed = {}
    try:
        for round_ in range(opts.rounds):
            for name, (binary, extra, pooled) in variants.items():
                cpu, driving, seconds, pss, finals = asyncio.run(
                    run(binary, extra, pooled, urls, proxy, opts.pages, settle_ms)
                )
                per[name].append((cpu, driving))
                landed.setdefault(name, finals)
                print(
                    f"round {round_ + 1} {name}: {cpu:.3f} s CPU/visit (Playwright's driver {driving:.3f} s), "
                    f"{seconds:.1f} s wall, Chromium's peak PSS {pss:.0f} MB",
                    flush=True,
                )
    finally:
        server.close()
    first = next(iter(landed.values()))
    for name, runs in per.items():
        alike = sum(landed[name][url] == first[url] for url in urls)
        cpu, driving = (statistics.median(run[n] for run in runs) for n in (0, 1))
        print(f"{name}: median {cpu:.3f} s CPU/visit, driver {driving:.3f} s; {alike}/{len(urls)} final URLs alike")


if __name__ == "__main__":
    main()
