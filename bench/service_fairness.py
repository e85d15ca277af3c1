"""bench.service's fairness step: one client keeps slow-page inputs in flight while another asks `fetch=none`.

The slow client (its own address, 127.0.0.2: a peer of its own to the service) keeps POSTS requests of LINES page
inputs each in flight, on pages the sandbox answers after SLOW_MS, longer than a download may take
(DOWNLOAD_TIMEOUT): each input holds its page slot until its downloads time out and their retries too. The other
client's figures are measured by wrk (bench.service_drivers.wrk_get) before and while it does; then the slow client goes, and
the page slots it held are counted until they are free.
"""

import contextlib
import http.client
import json
import socket
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from urllib.parse import urlsplit

from landing import settings as defaults

POSTS, LINES, HOSTS = 4, 32, 32  # 128 inputs in flight, on 32 hosts: 4 each, a host's limit (per domain)
SLOW_MS = (defaults.DOWNLOAD_TIMEOUT + 30) * 1000
SLOW_SOURCE = "127.0.0.2"


def slow_pages(world: Path) -> list[str]:
    """The slow pages' URLs, their routes added to the world's routes.jsonl (once: a kept world has them)."""
    urls = [f"https://slow-{n % HOSTS}.example/page-{n}" for n in range(POSTS * LINES)]
    routes = world / "routes.jsonl"
    known = routes.read_text(encoding="utf-8") if routes.exists() else ""
    if urls[0] not in known:
        with open(routes, "a", encoding="utf-8") as out:
            for url in urls:
                out.write(json.dumps({"url": url, "body": "<html><title>Slow</title></html>", "delay_ms": SLOW_MS}))
                out.write("\n")
    return urls


class SlowClient:
    """POSTS threads, each keeping one POST of LINES slow pages (`fetch=all`) in flight from SLOW_SOURCE until
    `leave()`, which closes their connections."""

    def __init__(self, url: str, pages: list[str]):
        host, port = urlsplit(url).hostname, urlsplit(url).port
        self.address, self.pages, self.stopping = (host, port), pages, threading.Event()
        self.connections: list = []
        self.threads = [threading.Thread(target=self._post, args=(n,), daemon=True) for n in range(POSTS)]
        for thread in self.threads:
            thread.start()

    def _post(self, number: int) -> None:
        lines = self.pages[number * LINES : (number + 1) * LINES]
        body = "".join(json.dumps({"q": page, "fetch": "all"}) + "\n" for page in lines).encode()
        while not self.stopping.is_set():
            connection = http.client.HTTPConnection(*self.address, timeout=600, source_address=(SLOW_SOURCE, 0))
            self.connections.append(connection)
            try:
                connection.request("POST", "/match", body=body)
                connection.getresponse().read()  # the whole answer: every line's pages timed out
            except (OSError, http.client.HTTPException):
                pass  # cut by leave()
            finally:
                connection.close()

    def leave(self) -> None:
        self.stopping.set()
        for connection in list(self.connections):
            with contextlib.suppress(OSError, AttributeError):  # a shutdown, not a close, wakes the thread reading
                connection.sock.shutdown(socket.SHUT_RDWR)
        for thread in self.threads:
            thread.join(30)


def health(url: str) -> tuple[int, dict]:
    try:
        with urllib.request.urlopen(f"{url}/healthz", timeout=30) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as refused:
        return refused.code, json.loads(refused.read())


def waited(url: str, what: str, check, seconds: float = 120) -> float:
    """Seconds until check(healthz body) held; exits the bench past `seconds`."""
    began = time.monotonic()
    while not check(health(url)[1]):
        if time.monotonic() - began > seconds:
            raise SystemExit(f"waited {seconds:g} s for {what}: {health(url)}")
        time.sleep(0.05)
    return time.monotonic() - began


def fairness(url: str, runs: tuple, count: int, seconds: float, pages: list[str], measure, show) -> dict:
    """The step: `measure(run, count, seconds)` (bench.service_drivers.wrk_get on `url`) alone, then while a SlowClient
    keeps its pages in flight, each with a run number of its own (an input asked alone would be a cached result
    beside); `show(name, figures)` prints each. The figures, and the page slots seen."""
    alone = measure(runs[0], count, seconds)
    show(f"fetch=none GET, {count} clients, alone", alone)
    slow = SlowClient(url, pages)
    try:
        waited(url, "the slow client's inputs", lambda h: h["page_slots_held"] + h["waiting"] >= len(pages))
        beside = measure(runs[1], count, seconds)
        status, during = health(url)
    finally:
        slow.leave()
    show(f"the same, {len(pages)} slow pages in flight", beside)
    print(
        f"  meanwhile: page slots held {during['page_slots_held']} of {during['page_slots']}, inputs waiting "
        f"{during['waiting']}, longest wait {during['longest_wait']:.1f} s; /healthz {status} {during['status']}",
        flush=True,
    )
    freed = waited(url, "the slow client's slots freed", lambda h: h["page_slots_held"] == 0 and h["waiting"] == 0)
    print(f"  the slow client gone: every page slot free after {freed:.2f} s", flush=True)
    return {"alone": alone, "beside": beside, "health": during, "freed_s": freed}


def step(bench, tmp: Path, settings: dict, strings: list[str], string_file: Path, most: int, seconds: float, pages):
    """bench.service's step 8 on a service of its own; `bench`: the bench.service module (its Service, clients,
    wrk_paths, wrk_get, show). The other client's inputs are the string inputs, none cached (a run of their own)."""
    print(f"\n8. fair work: a client keeping {len(pages)} slow pages in flight, another asking fetch=none", flush=True)
    service = bench.Service("fair", tmp, settings)
    try:
        # The Handle API's answers cached (the shared Redis), as in step 1; the results not.
        warming = "--requests", len(strings) // bench.BATCH + 1, "--batch", bench.BATCH, "--fetch", "none"
        bench.clients([service.url], string_file, most, *warming, "--unique", 2)
        paths = bench.wrk_paths(tmp / "fair.txt", strings)
        # Each measure's inputs padded by a run number of its own (bench/service_get.lua): never asked before.
        measure = lambda run, count, seconds: bench.wrk_get([service.url], paths, count, seconds, unique=run)  # noqa: E731
        return fairness(service.url, (3, 4), most, seconds, pages, measure, bench.show)
    finally:
        service.close()
