"""The matching service bench's drivers (bench/service.py): the service in a process of its own, wrk and the Python
clients, the stream, and what the sandbox logged."""

import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import quote, urlsplit

from bench.cgroups import cpu_cap
from landing_dev import runner

SERVING = re.compile(r"Serving on (http://\S+)")
WRK = shutil.which("wrk")
CONSUMING = re.compile(r"(Consuming) ")


class Service:
    """`scrapy serve --port 0` in a process of its own; `url` once it says where it serves."""

    def __init__(self, name: str, tmp: Path, settings: dict, cores: float | None = None, http: bool = True):
        self.log = tmp / f"{name}.log"
        join = cpu_cap(f"landing-bench-{name}", cores)[1] if cores else None
        command = runner.scrapy_command("serve", "--port", 0, *([] if http else ["--no-http"]), settings=settings)
        self.process = runner.Crawl(command, self.log, preexec_fn=join)
        deadline = time.monotonic() + 120
        ready = SERVING if http else CONSUMING
        while not (found := ready.search(self.process.text())):
            if not self.process.running() or time.monotonic() > deadline:
                sys.exit(f"`scrapy serve` did not start:\n{self.process.text()[-3000:]}")
            time.sleep(0.1)
        self.url = found.group(1)

    def close(self):
        self.process.interrupt()  # SIGINT drains, as SIGTERM does
        try:
            self.process.wait(60)
        except subprocess.TimeoutExpired:
            self.process.kill()


def clients(urls: list[str], inputs: Path, count: int, *extra) -> dict:
    """bench.service_client's figures."""
    command = [sys.executable, "-m", "bench.service_client", ",".join(urls), str(inputs), "--clients", str(count)]
    done = subprocess.run(command + [str(e) for e in extra], cwd=runner.PROJECT, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"the clients failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.splitlines()[-1])


def wrk_paths(path: Path, inputs: list[str]) -> Path:
    """wrk's request paths, GET /match?q=INPUT&fetch=none: each input once."""
    with open(path, "w", encoding="utf-8") as out:
        for text in inputs:
            out.write(f"/match?q={quote(text, safe='')}&fetch=none\n")
    return path


def wrk_get(urls: list[str], paths: Path, count: int, seconds: float, unique: int = 0) -> dict:
    """GET /match by `count` wrk connections (each one request in flight, keep-alive) spread over `urls` for
    `seconds`, the paths of `paths` in turn: bench.service_client's figures (answers, p50 and p99 per request). With
    `unique` (a run's own number, above 0), every request's input is one never asked before (bench/service_get.lua)."""
    threads = min(count, 2 if len(urls) == 1 else len(urls))  # a thread's connections go to one URL
    addresses = ",".join(urlsplit(url).netloc for url in urls)
    command = [WRK, "-t", threads, "-c", count, "-d", f"{max(1, round(seconds))}s", "--timeout", "30s"]
    command += ["-s", Path(__file__).with_name("service_get.lua"), urls[0]]
    env = {**os.environ, "LANDING_WRK_PATHS": str(paths), "LANDING_WRK_ADDRS": addresses}
    env["LANDING_WRK_UNIQUE"] = str(unique)
    done = subprocess.run([str(c) for c in command], capture_output=True, text=True, env=env)
    if done.returncode != 0 or not done.stdout.strip():
        sys.exit(f"wrk failed:\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}")
    found = json.loads(done.stdout.strip().splitlines()[-1])
    failed = found["connect"] + found["read"] + found["write"] + found["timeout"]
    answers = found["requests"] - found["non_2xx"]
    return {
        "answers": answers,
        "requests": found["requests"],
        "seconds": found["seconds"],
        "answers_per_s": round(answers / found["seconds"], 1),
        "p50_ms": found["p50_ms"],
        "p99_ms": found["p99_ms"],
        "errors": found["non_2xx"] + failed,
        "statuses": {"200": answers, "other": found["non_2xx"], "failed": failed},
    }


def stream_rate(url: str, inputs: list[str]) -> float:
    """Inputs a second from the first entry added to bench:in until every result is in bench:out."""
    import redis

    with redis.Redis.from_url(url) as client:
        began = time.monotonic()
        for start in range(0, len(inputs), 500):
            with client.pipeline(transaction=False) as pipe:
                for text in inputs[start : start + 500]:
                    pipe.xadd("bench:in", {"q": text, "fetch": "none"})
                pipe.execute()
        while client.xlen("bench:out") < len(inputs):
            if time.monotonic() - began > 300:
                sys.exit(f"the stream consumer wrote {client.xlen('bench:out')} of {len(inputs)} results in 300 s")
            time.sleep(0.05)
        return len(inputs) / (time.monotonic() - began)


def write_inputs(path: Path, inputs: list[str]) -> Path:
    path.write_text("".join(json.dumps(text) + "\n" for text in inputs), encoding="utf-8")
    return path


def show(name: str, found: dict) -> None:
    print(
        f"  {name:<34} {found['answers_per_s']:9,.0f} answers/s  p50 {found['p50_ms']:7.1f} ms  "
        f"p99 {found['p99_ms']:7.1f} ms  errors {found['errors']}",
        flush=True,
    )


def logged(log: Path) -> list[tuple[str, int]]:
    """(URL, status) of every request the sandbox logged ("GET url -> status")."""
    found = []
    for line in log.read_text().splitlines():
        if hit := re.search(r"(GET|POST|HEAD) (\S+) -> (\d+)", line):
            found.append((hit.group(2), int(hit.group(3))))
    return found
