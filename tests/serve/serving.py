"""`scrapy serve` run for the tests: a process started on a free port, its log read as it comes, and plain HTTP
clients (the standard library's, as any user's would be) to ask it."""

import http.client
import json
import shutil
import socket
import subprocess
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from urllib.parse import quote, urlsplit

from prometheus_client.parser import text_string_to_metric_families

from landing_dev import runner
from tests import forked
from tests.sampler.crawling import PROJECT, truth_of

DEADLINE = 60  # real seconds any wait may take before the test fails


class Served:
    """A `scrapy serve` process; `url` once its "Serving on" line was logged; `lines`: its log so far."""

    def __init__(self, args: list[str], env: dict):
        command = runner.scrapy_command("serve", "--port", "0", *args)
        self.process = forked.popen(command, cwd=PROJECT, env=env, stderr=subprocess.PIPE, text=True)
        self.lines: list[str] = []
        self.url = None
        self.serving = threading.Event()
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self):
        for line in self.process.stderr:
            self.lines.append(line)
            if "Serving on http://" in line and self.url is None:
                self.url = line.split("Serving on ", 1)[1].split()[0]
                self.serving.set()
        self.serving.set()  # ended: nobody waits for a line that will not come

    def wait_serving(self) -> str:
        if not self.serving.wait(DEADLINE) or self.url is None:
            raise AssertionError(f"no 'Serving on' line; the log ends:\n{self.log()[-3000:]}")
        return self.url

    def log(self) -> str:
        return "".join(self.lines)

    def wait_logged(self, text: str) -> None:
        deadline = time.monotonic() + DEADLINE
        while text not in self.log():
            if time.monotonic() > deadline or self.process.poll() is not None and text not in self.log():
                raise AssertionError(f"never logged {text!r}; the log ends:\n{self.log()[-3000:]}")
            time.sleep(0.05)

    def close(self):
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait(10)
        self.reader.join(10)


def get(url: str) -> tuple[int, dict | str, dict]:
    """(status, the body's JSON or text, headers) of a GET, whatever its status."""
    return _open(urllib.request.Request(url))


def request(url: str, method: str, body: bytes | None = None) -> tuple[int, dict | str, dict]:
    return _open(urllib.request.Request(url, data=body, method=method))


def _open(asked) -> tuple[int, dict | str, dict]:
    try:
        with urllib.request.urlopen(asked, timeout=DEADLINE) as answer:
            status, raw, headers = answer.status, answer.read(), dict(answer.headers)
    except urllib.error.HTTPError as refused:
        status, raw, headers = refused.code, refused.read(), dict(refused.headers)
    text = raw.decode("utf-8")
    try:
        return status, json.loads(text), headers
    except ValueError:
        return status, text, headers


def match(url: str, q: str, fetch: str | None = None) -> tuple[int, dict]:
    status, body, _ = get(f"{url}/match?q={quote(q, safe='')}" + (f"&fetch={fetch}" if fetch else ""))
    return status, body


def posted(url: str, lines: list, path: str = "/match") -> "Posted":
    """A POST of JSON lines (each value dumped, a str/bytes line sent as it is), its answer read line by line."""
    return Posted(url, b"".join(_line(value) + b"\n" for value in lines), path)


def _line(value) -> bytes:
    if isinstance(value, bytes):
        return value
    return json.dumps(value).encode()


class Posted:
    def __init__(self, url: str, body: bytes, path: str):
        host, port = url.removeprefix("http://").split(":")
        self.connection = http.client.HTTPConnection(host, int(port), timeout=DEADLINE)
        self.connection.request("POST", path, body=body, headers={"Content-Type": "application/x-ndjson"})
        self.response = self.connection.getresponse()
        self.status, self.headers = self.response.status, dict(self.response.headers)

    def next(self) -> dict | None:
        """The next line's JSON, None at the end."""
        line = self.response.readline()
        return json.loads(line) if line else None

    def rest(self) -> list[dict]:
        found = []
        while (line := self.next()) is not None:
            found.append(line)
        self.connection.close()
        return found


def wait_until(what: str, check):
    """check()'s first true value, looked for every 50 ms until DEADLINE."""
    deadline = time.monotonic() + DEADLINE
    while not (found := check()):
        if time.monotonic() > deadline:
            raise AssertionError(f"waited {DEADLINE} s for {what}")
        time.sleep(0.05)
    return found


def left_open(url: str, method: str, target: str, body: bytes = b"", source: str = "127.0.0.1") -> socket.socket:
    """A request sent from the address `source` whose answer is never read: the socket, for the test to close (a
    client going away)."""
    host, port = url.removeprefix("http://").split(":")
    connection = socket.create_connection((host, int(port)), timeout=DEADLINE, source_address=(source, 0))
    head = f"{method} {target} HTTP/1.1\r\nHost: {host}\r\nContent-Length: {len(body)}\r\n\r\n"
    connection.sendall(head.encode() + body)
    return connection


def picked_inputs(match_world: Path) -> dict:
    """Inputs of every kind from the match world, no two asking the same question (`scrapy match` answers its inputs
    at once, and which of two inputs asks a shared question first, the one whose evidence counts its requests, is
    the downloader's order), and pages on hosts of their own to serve slowly."""
    truth = truth_of(match_world)
    reached = [(d, t["final_url"]) for d, t in truth.items() if not t["error"] and "/pii/" not in t["final_url"]]
    direct = [(d, url) for d, url in reached if truth[d]["scenario"] == "direct"]
    in_url = [(d, url) for d, url in direct if d in url.lower()][:2]
    meta = [(d, url) for d, url in direct if d not in url.lower()][:3]
    used = {urlsplit(url).hostname for _, url in in_url + meta}
    slow = {}
    for _, url in reached:
        host = urlsplit(url).hostname
        if host not in used and len(slow) < 4:
            used.add(host)
            slow[host] = url
    inputs = [
        f"https://doi.org/{meta[0][0]}",
        in_url[0][1],
        meta[1][1],
        f"Two works: https://doi.org/{meta[2][0]} and {in_url[1][1]} (its page).",
        "10.99999/no.such.work",
        "not a url at all",
    ]
    return {"inputs": inputs, "doi": meta[0][0], "slow": list(slow.values())}


def health(url) -> dict:
    return get(f"{url}/healthz")[1]


def in_flight(url) -> int:
    return health(url)["in_flight"]


def held_and_waiting(url) -> tuple[int, int]:
    found = health(url)
    return found["page_slots_held"], found["waiting"]


def metric(url, name: str, **labels) -> float | None:
    for family in text_string_to_metric_families(get(f"{url}/metrics")[1]):
        for sample in family.samples:
            if sample.name == name and sample.labels == labels:
                return sample.value
    return None


def blocked_lines(pages: list[str]) -> bytes:
    return b"".join(json.dumps({"q": page, "fetch": "all"}).encode() + b"\n" for page in pages)


def routed_world(source: Path, world: Path, delayed: set, delay_ms: int, added: list[dict]) -> int:
    """A copy of the world at `source` in `world`, its routes of the `delayed` URLs answering after `delay_ms` and the
    `added` routes served too; how many routes it delayed."""
    shutil.copytree(source, world)
    routes = [json.loads(line) for line in (world / "routes.jsonl").read_text().splitlines()]
    slowed = [{**r, "delay_ms": delay_ms} if r["url"] in delayed else r for r in routes]
    (world / "routes.jsonl").write_text("".join(json.dumps(r) + "\n" for r in slowed + added))
    return sum(r != s for r, s in zip(routes, slowed, strict=True))
