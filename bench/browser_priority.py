"""Benchmark (not a test): the CPU a busy process keeps beside a busy Chromium, with Chromium lowered as the driver
lowers it, against lowered as it was before 2026-11-26.

    .venv/bin/python -m bench.browser_priority [--seconds 20] [--rounds 2] [--pages 3] [--nice 10]

Two sides run at once, each in a session of its own, as a crawl and its Chromium do: a process that spins (the
crawl's event loop, which is CPU-bound on a full run) and a Chromium started by Playwright through a launcher
script, busy on --pages pages whose scripts keep a core busy. `group`: the driver's script (driver.launcher), which
runs Chromium at niceness --nice and sets its session's group (autogroup) to it; `process`: the same script at no
niceness, run under `nice -n` --nice, so only Chromium's processes are lowered, as before. Per side and round, over
--seconds after a warm-up: the cores the spinning process got and the cores Chromium's tree got; the sides swap
their start order each round, and both meet the same moments of a shared machine. Last, the medians.
"""

import argparse
import asyncio
import json
import multiprocessing
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psutil

from landing import settings as defaults
from landing import tuning
from landing.browser.driver import ARGS, launcher
from tests.local_http import serving

PAGE = (
    b"<html><body><p>busy</p><script>"
    b"setInterval(function () { var t = Date.now(); while (Date.now() - t < 40) {} }, 50);</script></body></html>"
)
SIDES = ("group", "process")


def spin():
    while True:
        pass


def script(side: str, folder: Path, nice: int) -> str:
    """The executable Playwright starts for a side."""
    chromium, nice_path = defaults.LANDING_CHROMIUM, shutil.which("nice")
    path = folder / "chromium"
    if side == "group":
        path.write_text(launcher(chromium, nice, nice_path, None))
    else:
        (folder / "plain").write_text(launcher(chromium, 0, None, None))
        (folder / "plain").chmod(0o700)
        path.write_text(f'#!/bin/sh\nexec {nice_path} -n {nice} {folder / "plain"} "$@"\n')
    path.chmod(0o700)
    return str(path)


def chromium_cpu(root: psutil.Process) -> float:
    total = 0.0
    for child in root.children(recursive=True):
        try:
            if child.name().startswith("chrom"):
                times = child.cpu_times()
                total += times.user + times.system + times.children_user + times.children_system
        except psutil.Error:
            continue
    return total


async def side(name: str, port: int, pages: int, seconds: float, nice: int) -> dict:
    from playwright.async_api import async_playwright

    folder = Path(tempfile.mkdtemp(prefix="landing-priority-"))
    spinner = multiprocessing.Process(target=spin, daemon=True)
    spinner.start()
    try:
        async with async_playwright() as playwright:
            browser = await playwright.chromium.launch(
                executable_path=script(name, folder, nice), headless=True, args=ARGS
            )
            for n in range(pages):
                await (await browser.new_page()).goto(f"http://127.0.0.1:{port}/busy{n}")
            me, spinning = psutil.Process(), psutil.Process(spinner.pid)
            await asyncio.sleep(3)  # warm-up: every page's script running
            before = (sum(spinning.cpu_times()[:2]), chromium_cpu(me), time.monotonic())
            await asyncio.sleep(seconds)
            after = (sum(spinning.cpu_times()[:2]), chromium_cpu(me), time.monotonic())
            await browser.close()
    finally:
        spinner.terminate()
        shutil.rmtree(folder, ignore_errors=True)
    elapsed = after[2] - before[2]
    return {"side": name, "spinner": (after[0] - before[0]) / elapsed, "chromium": (after[1] - before[1]) / elapsed}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=20, help="measured seconds per round (20)")
    parser.add_argument("--rounds", type=int, default=2, help="rounds, start order swapped each (2)")
    parser.add_argument("--pages", type=int, default=3, help="busy pages per Chromium (3)")
    parser.add_argument("--nice", type=int, default=tuning.BROWSER_NICE, help="niceness (landing.tuning.BROWSER_NICE)")
    parser.add_argument("--side", choices=SIDES, help=argparse.SUPPRESS)  # one side, in its own session
    parser.add_argument("--port", type=int, help=argparse.SUPPRESS)
    opts = parser.parse_args()
    if opts.side:
        print(json.dumps(asyncio.run(side(opts.side, opts.port, opts.pages, opts.seconds, opts.nice))))
        return
    print(f"# browser_priority: {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}, {opts}", flush=True)
    seen = {name: [] for name in SIDES}
    with serving(lambda path: (200, {"Content-Type": "text/html"}, PAGE)) as (port, _):
        for n in range(opts.rounds):
            order = SIDES if n % 2 == 0 else SIDES[::-1]
            args = ["--seconds", str(opts.seconds), "--pages", str(opts.pages), "--nice", str(opts.nice)]
            runs = [
                subprocess.Popen(
                    [sys.executable, "-m", "bench.browser_priority", "--side", name, "--port", str(port), *args],
                    stdout=subprocess.PIPE,
                    text=True,
                    start_new_session=True,  # a session of its own, as a crawl started from its own shell
                )
                for name in order
            ]
            for run in runs:
                found = json.loads(run.communicate()[0])
                seen[found["side"]].append(found)
                print(
                    f"round {n + 1} {found['side']:>7}: spinning process {found['spinner']:.2f} cores, Chromium "
                    f"{found['chromium']:.2f} cores (load {os.getloadavg()[0]:.1f})",
                    flush=True,
                )
    for name, runs in seen.items():
        print(
            f"median {name:>7}: spinning process {statistics.median(r['spinner'] for r in runs):.2f} cores, "
            f"Chromium {statistics.median(r['chromium'] for r in runs):.2f} cores"
        )


if __name__ == "__main__":
    main()
