"""Benchmark (not a test): how the sandbox scales with the size of its world.

1. Generation: times `scrapy sandbox generate` for a --baseline-dois world and a --dois world (seed --seed)
   in a temporary directory, with the peak RSS of the generating process and the size of each file.
2. Serving: starts `scrapy sandbox serve` on each world (port 0, 127.0.0.1 only; the URL is read from the
   first line of its stdout), drives it with --concurrency workers through the proxy for --requests
   requests, samples the server's RSS with psutil and reports requests/s and peak RSS, then stops it.

The load is a fixed mix drawn from the world's world.json and truth.jsonl (same seed, same mix for both
worlds):
   30%  resolver      GET http://doi.org/<doi>                      (absolute-form through the proxy: 301)
   10%  member        GET http://api.crossref.org/members/<id>
   10%  works sample  GET http://api.crossref.org/members/<id>/works?sample=20
    5%  datacite      GET http://api.datacite.org/dois?client-id=<id>&page[size]=25
   45%  landing       GET <truth landing_url>, https: CONNECT, TLS (not verified), GET, one tunnel each
Landing pages of the `slow` scenario (a 2 s delay by design) are left out: they measure sleep, not work.
Client and server share the machine's cores.

    .venv/bin/python bench/sandbox_scale.py [--dois 100000] [--baseline-dois 10000] [--requests 20000]
"""

import argparse
import asyncio
import json
import os
import random
import re
import signal
import ssl
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit

import psutil

from bench.scratch import scratch
from landing_dev.runner import scrapy_command

REPO = Path(__file__).resolve().parent.parent
MIX = (("resolver", 0.30), ("member", 0.10), ("works-sample", 0.10), ("datacite", 0.05), ("landing", 0.45))
FILES = ("world.json", "dois.jsonl", "routes.jsonl", "truth.jsonl", ".index.sqlite")


def scrapy(*args):
    return scrapy_command("sandbox", *args)


def rss(process: psutil.Process) -> int:
    """Resident memory of a process and its children, in bytes (0 once it has gone)."""
    try:
        return sum(p.memory_info().rss for p in [process, *process.children(recursive=True)])
    except psutil.Error:
        return 0


def mb(n: float) -> str:
    return f"{n / 1e6:,.1f} MB"


# ---------------------------------------------------------------------------------------------- generate


def generate(directory: Path, dois: int, seed: int) -> dict:
    started = time.perf_counter()
    proc = subprocess.Popen(
        scrapy("generate", directory, "--dois", dois, "--seed", seed),
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    watched, peak = psutil.Process(proc.pid), 0
    while proc.poll() is None:
        peak = max(peak, rss(watched))
        time.sleep(0.05)
    out, err = proc.communicate()
    seconds = time.perf_counter() - started
    if proc.returncode != 0:
        sys.exit(f"generate {dois} failed ({proc.returncode}):\n{err}")
    sizes = {name: (directory / name).stat().st_size for name in FILES if (directory / name).exists()}
    return {"dois": dois, "seconds": seconds, "peak_rss": peak, "sizes": sizes, "summary": out.strip()}


def print_generate(result: dict):
    sizes = ", ".join(f"{name} {mb(size)}" for name, size in result["sizes"].items())
    own = re.search(r" in ([0-9.]+)s", result["summary"])
    print(
        f"generate {result['dois']:>9,} DOIs: {result['seconds']:7.1f} s "
        f"({result['dois'] / result['seconds']:,.0f} DOIs/s; {own.group(1) if own else '?'} s by the command's "
        f"own clock, without interpreter start-up), peak RSS {mb(result['peak_rss'])}"
    )
    print(f"    files: {sizes}; total {mb(sum(result['sizes'].values()))}")


# ---------------------------------------------------------------------------------------------- the load


def plan(directory: Path, requests: int, seed: int) -> list[tuple[str, str]]:
    """[(kind, absolute URL)]: the fixed request mix, drawn from the world's own files."""
    rng = random.Random(seed)
    world = json.loads((directory / "world.json").read_text())
    members = [m["id"] for m in world["members"]]
    clients = [c["id"] for c in world["clients"]] or [None]
    dois, landings = [], []
    with open(directory / "truth.jsonl") as lines:
        for line in lines:
            row = json.loads(line)
            dois.append(row["doi"])
            if row["landing_url"] and row["scenario"] != "slow" and not row["delay_ms"]:
                landings.append(row["landing_url"])
    kinds, weights = zip(*MIX)
    out = []
    for kind in rng.choices(kinds, weights, k=requests):
        if kind == "resolver":
            url = f"http://doi.org/{rng.choice(dois)}"
        elif kind == "member":
            url = f"http://api.crossref.org/members/{rng.choice(members)}"
        elif kind == "works-sample":
            url = f"http://api.crossref.org/members/{rng.choice(members)}/works?sample=20"
        elif kind == "datacite":
            url = f"http://api.datacite.org/dois?client-id={rng.choice(clients)}&page[size]=25"
        else:
            url = rng.choice(landings)
        out.append((kind, url))
    return out


async def read_reply(reader) -> tuple[int, int]:
    head = await reader.readuntil(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split(" ", 2)[1])
    length = 0
    for line in lines[1:]:
        name, _, value = line.partition(":")
        if name.strip().lower() == "content-length":
            length = int(value.strip())
    if length:
        await reader.readexactly(length)
    return status, length


def request_bytes(target: str, host: str) -> bytes:
    return (
        f"GET {target} HTTP/1.1\r\nHost: {host}\r\nUser-Agent: landing-sandbox-bench\r\nAccept: */*\r\n\r\n"
    ).encode("latin-1")


class Load:
    def __init__(self, proxy_host: str, proxy_port: int, concurrency: int):
        self.proxy = (proxy_host, proxy_port)
        self.concurrency = concurrency
        self.tls = ssl.create_default_context()
        self.tls.check_hostname = False
        self.tls.verify_mode = ssl.CERT_NONE  # the sandbox's certificate is self-signed, made at start-up
        self.latencies: dict = {}
        self.statuses: dict = {}
        self.failures = 0
        self.bytes = 0

    async def _http(self, conn, url):
        """Absolute-form GET through the proxy on the worker's kept-alive connection."""
        if conn[0] is None:
            conn[:] = await asyncio.open_connection(*self.proxy)
        reader, writer = conn
        writer.write(request_bytes(url, urlsplit(url).netloc))
        await writer.drain()
        return await read_reply(reader)

    async def _https(self, url):
        """CONNECT host:443, TLS inside the tunnel, origin-form GET, close: as a crawler meeting a new host."""
        parts = urlsplit(url)
        reader, writer = await asyncio.open_connection(*self.proxy)
        try:
            authority = f"{parts.hostname}:{parts.port or 443}"
            writer.write(f"CONNECT {authority} HTTP/1.1\r\nHost: {authority}\r\n\r\n".encode())
            await writer.drain()
            head = await reader.readuntil(b"\r\n\r\n")
            if b" 200 " not in head.split(b"\r\n", 1)[0] + b" ":
                raise ConnectionError(f"CONNECT refused: {head[:60]!r}")
            await writer.start_tls(self.tls, server_hostname=parts.hostname)
            target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
            writer.write(request_bytes(target, parts.netloc))
            await writer.drain()
            return await read_reply(reader)
        finally:
            writer.close()

    async def _worker(self, queue):
        conn = [None, None]
        while True:
            try:
                kind, url = queue.pop()
            except IndexError:
                break
            started = time.perf_counter()
            try:
                if url.startswith("https://"):
                    status, length = await asyncio.wait_for(self._https(url), 30)
                else:
                    status, length = await asyncio.wait_for(self._http(conn, url), 30)
            except (TimeoutError, OSError, asyncio.IncompleteReadError, ValueError, ssl.SSLError):
                self.failures += 1
                if conn[1] is not None:
                    conn[1].close()
                conn[:] = [None, None]
                continue
            self.latencies.setdefault(kind, []).append(time.perf_counter() - started)
            key = (kind, status)
            self.statuses[key] = self.statuses.get(key, 0) + 1
            self.bytes += length
        if conn[1] is not None:
            conn[1].close()

    async def run(self, requests):
        queue = list(reversed(requests))
        await asyncio.gather(*(self._worker(queue) for _ in range(self.concurrency)))


async def sample_rss(process: psutil.Process, peak: list, stop: asyncio.Event):
    while not stop.is_set():
        peak[0] = max(peak[0], rss(process))
        try:
            await asyncio.wait_for(stop.wait(), 0.05)
        except TimeoutError:
            pass


async def serve_and_load(directory: Path, requests, concurrency: int, timeout: float) -> dict:
    log = open(directory / "serve.log", "w")
    proc = await asyncio.create_subprocess_exec(
        *scrapy("serve", directory, "--port", 0, "--host", "127.0.0.1"),
        cwd=REPO,
        stdout=asyncio.subprocess.PIPE,
        stderr=log,
    )
    watched = psutil.Process(proc.pid)
    try:
        started = time.perf_counter()
        line = (await asyncio.wait_for(proc.stdout.readline(), 300)).decode().strip()
        startup = time.perf_counter() - started
        parts = urlsplit(line)
        if parts.scheme != "http" or parts.hostname != "127.0.0.1" or not parts.port:
            raise SystemExit(f"unexpected first line from `scrapy sandbox serve`: {line!r}")
        await asyncio.sleep(0.2)
        idle = rss(watched)
        peak, stop = [idle], asyncio.Event()
        sampler = asyncio.create_task(sample_rss(watched, peak, stop))
        load = Load("127.0.0.1", parts.port, concurrency)
        cpu_before = sum(watched.cpu_times()[:2])
        began = time.perf_counter()
        await asyncio.wait_for(load.run(requests), timeout)
        elapsed = time.perf_counter() - began
        cpu = sum(watched.cpu_times()[:2]) - cpu_before
        stop.set()
        await sampler
        return {
            "url": line,
            "startup": startup,
            "idle_rss": idle,
            "peak_rss": peak[0],
            "seconds": elapsed,
            "cpu": cpu,
            "load": load,
        }
    finally:
        if proc.returncode is None:
            proc.send_signal(signal.SIGINT)  # serve_forever stops cleanly on Ctrl-C
            try:
                await asyncio.wait_for(proc.wait(), 10)
            except TimeoutError:
                proc.kill()
                await proc.wait()
        log.close()


def print_serve(dois: int, result: dict, concurrency: int):
    load = result["load"]
    done = sum(len(v) for v in load.latencies.values())
    print(
        f"serve    {dois:>9,} DOIs: {done:,} requests ({load.failures} failed) in {result['seconds']:.1f} s "
        f"at concurrency {concurrency}: {done / result['seconds']:,.0f} requests/s, {mb(load.bytes)} of bodies; "
        f"server RSS idle {mb(result['idle_rss'])}, peak {mb(result['peak_rss'])} "
        f"(ready in {result['startup']:.1f} s)"
    )
    print(
        f"    server CPU {result['cpu']:.1f} s for {result['seconds']:.1f} s of load "
        f"({done / result['cpu']:,.0f} requests per server CPU-second; the client shares the machine)"
    )
    for kind, _ in MIX:
        times = sorted(load.latencies.get(kind, []))
        if not times:
            continue
        statuses = ", ".join(f"{s}:{n}" for (k, s), n in sorted(load.statuses.items()) if k == kind)
        print(
            f"    {kind:<13} {len(times):>6,}  p50 {times[len(times) // 2] * 1000:6.1f} ms  "
            f"p95 {times[int(len(times) * 0.95)] * 1000:6.1f} ms  statuses {statuses}"
        )


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dois", type=int, default=100_000, help="DOIs in the big world (default 100,000)")
    parser.add_argument("--baseline-dois", type=int, default=10_000, help="DOIs in the baseline world (10,000)")
    parser.add_argument("--requests", type=int, default=20_000, help="requests per serving run (20,000)")
    parser.add_argument("--concurrency", type=int, default=20, help="concurrent client connections (20)")
    parser.add_argument("--seed", type=int, default=1, help="generator and request-mix seed (1)")
    parser.add_argument("--timeout", type=float, default=900, help="give up a serving run after this many s")
    parser.add_argument("--keep", action="store_true", help="keep the generated worlds (path is printed)")
    opts = parser.parse_args()

    with scratch("landing-bench-", opts.keep) as tmp:
        measure(opts, tmp)


def measure(opts, tmp: Path) -> None:
    print(f"# sandbox_scale: worlds in {tmp}; {os.cpu_count()} CPUs; python {sys.version.split()[0]}")
    sizes = [opts.baseline_dois, opts.dois] if opts.baseline_dois else [opts.dois]
    worlds = {}
    for n in sizes:
        worlds[n] = tmp / f"w{n}"
        print_generate(generate(worlds[n], n, opts.seed))
    for n in sizes:
        requests = plan(worlds[n], opts.requests, opts.seed)
        result = asyncio.run(serve_and_load(worlds[n], requests, opts.concurrency, opts.timeout))
        print_serve(n, result, opts.concurrency)


if __name__ == "__main__":
    main()
