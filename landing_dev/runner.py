"""Sandbox crawls as a user runs them, for the demo, the benchmarks and the tests: serve a world, name the stores,
build `scrapy crawl doi_sampler`'s command line, run it in a subprocess, stop it, and watch its processes.

Every sandbox crawl of the checkout is built here, so that they all run the same command a user types.
"""

import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

import psutil

PROJECT = Path(__file__).resolve().parents[1]
SPIDER = "doi_sampler"
PROGRESS = re.compile(  # landing.sampler.progress_log; a resumed run's line also counts the visits before it
    r"progress: (\d+) DOIs sampled, (\d+) visited \((?:\d+ before this crawl, )?(\d+) pages, (\d+) failed\), "
    r"[\d.]+ DOIs/s, (\d+) requests"
)


def settings_args(settings: Mapping[str, object]) -> list[str]:
    """Scrapy's `-s NAME=VALUE` arguments for each setting, in order.

    >>> settings_args({"LANDING_DRIVER": "http", "TELNETCONSOLE_ENABLED": False})
    ['-s', 'LANDING_DRIVER=http', '-s', 'TELNETCONSOLE_ENABLED=False']
    """
    return [arg for name, value in settings.items() for arg in ("-s", f"{name}={value}")]


def pairs(values: Iterable[str]) -> dict[str, str]:
    """Settings from `NAME=VALUE` strings (a bench's --set); a string without '=' is a ValueError naming it.

    >>> pairs(["LANDING_DRIVER=http", "LANDING_SANDBOX=http://x?a=b"])
    {'LANDING_DRIVER': 'http', 'LANDING_SANDBOX': 'http://x?a=b'}
    >>> pairs(["LANDING_DRIVER"])
    Traceback (most recent call last):
    ValueError: a setting is NAME=VALUE, not 'LANDING_DRIVER'
    """
    found = {}
    for value in values:
        name, equals, setting = value.partition("=")
        if not equals or not name:
            raise ValueError(f"a setting is NAME=VALUE, not {value!r}")
        found[name] = setting
    return found


@dataclass(frozen=True)
class Stores:
    """Where a crawl, or any project command, reads and writes; `unwritten` None leaves LANDING_UNWRITTEN_DIR at its
    default. `settings` are more settings every command on these stores gets."""

    docs: str
    blobs: str
    artifacts: Path
    unwritten: Path | None = None
    settings: Mapping[str, object] = field(default_factory=dict)

    @classmethod
    def under(cls, root: Path, **named) -> "Stores":
        """A SQLite document store, file blobs, artifacts and unwritten documents, all under root unless named.

        >>> Stores.under(Path("/tmp/x")).as_settings()["LANDING_BLOBS"]
        'file:///tmp/x/blobs'
        """
        found = {"docs": f"sqlite:///{root / 'landing.db'}", "blobs": f"file://{root / 'blobs'}"}
        found |= {"artifacts": root / "artifacts", "unwritten": root / "unwritten"}
        return cls(**{**found, **named})

    def as_settings(self) -> dict[str, object]:
        found = {"LANDING_DOCS": self.docs, "LANDING_BLOBS": self.blobs, "LANDING_ARTIFACTS_DIR": self.artifacts}
        if self.unwritten is not None:
            found["LANDING_UNWRITTEN_DIR"] = self.unwritten
        return {**found, **self.settings}


def scrapy_command(*args, settings: Mapping[str, object] | None = None) -> list[str]:
    """`scrapy ARGS -s ...` run by this interpreter (the project's virtualenv), as `python -m scrapy`."""
    return [sys.executable, "-m", "scrapy", *map(str, args), *settings_args(settings or {})]


def crawl_command(
    proxy: str | None, stores: Stores, settings: Mapping[str, object] | None = None, extra: Iterable[str] = ()
) -> list[str]:
    """`scrapy crawl doi_sampler` on `stores` through the sandbox at `proxy` (None: endpoints the settings name), no
    telnet console; `settings`, then `extra` (raw arguments, such as a test's `-s` pairs) come last, so they win.

    >>> command = crawl_command("http://p", Stores("sqlite:///d.db", "file://b", Path("a")), {"LOG_LEVEL": "INFO"})
    >>> command[1:5]
    ['-m', 'scrapy', 'crawl', 'doi_sampler']
    >>> command[6::2]  # every other argument is "-s"
    ['LANDING_DOCS=sqlite:///d.db', 'LANDING_BLOBS=file://b', 'LANDING_ARTIFACTS_DIR=a', 'LANDING_SANDBOX=http://p', \
'TELNETCONSOLE_ENABLED=False', 'LOG_LEVEL=INFO']
    """
    sandbox = {"LANDING_SANDBOX": proxy} if proxy is not None else {}
    command = {**stores.as_settings(), **sandbox, "TELNETCONSOLE_ENABLED": False, **(settings or {})}
    return [*scrapy_command("crawl", SPIDER, settings=command), *extra]


def progress(line: str) -> tuple[int, int, int, int, int] | None:
    """(sampled, visited, pages, failed, requests) of a crawl's progress line, or None for any other line.

    >>> progress("[landing] INFO: progress: 12 DOIs sampled, 10 visited (9 pages, 1 failed), 3.0 DOIs/s, 40 requests")
    (12, 10, 9, 1, 40)
    >>> progress("progress: 12 DOIs sampled, 10 visited (4 before this crawl, 5 pages, 1 failed), 1.0 DOIs/s, 9 requests")
    (12, 10, 5, 1, 9)
    """
    found = PROGRESS.search(line)
    return tuple(map(int, found.groups())) if found else None


def stat(log: str, name: str) -> int:
    """A figure of the stats a crawl dumps at its end (the last dump's), 0 when it is not there.

    >>> stat("'downloader/request_count': 7,\\n 'landing/pids': 3}", "landing/pids")
    3
    """
    found = re.findall(rf"'{re.escape(name)}': (\d+)", log)
    return int(found[-1]) if found else 0


def stop(process: subprocess.Popen, grace: float) -> None:
    """Ctrl-C (SIGINT: Scrapy finishes what is in flight and closes), then SIGKILL after `grace` seconds."""
    if process.poll() is None:
        process.send_signal(signal.SIGINT)
        try:
            process.wait(grace)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


class Crawl:
    """A command in a subprocess, as a user runs it: its output copied line by line to `log` (line-buffered, to be
    watched while it runs), each stderr line handed to `on_line`, and its progress lines kept in `events` as
    (monotonic time, sampled, visited, requests)."""

    def __init__(self, command, log: Path, env=None, cwd: Path | None = PROJECT, on_line=None, preexec_fn=None):
        self.command, self.log, self.on_line, self.events = command, log, on_line, []
        out = open(log, "w", buffering=1)
        try:
            self.process = subprocess.Popen(
                command,
                cwd=cwd,
                stdout=out,
                stderr=subprocess.PIPE,
                text=True,
                env={**os.environ, **(env or {})},
                preexec_fn=preexec_fn,
            )
        except BaseException:
            out.close()
            raise
        self.started = time.monotonic()
        self._reader = threading.Thread(target=self._follow, args=(out,), daemon=True)
        self._reader.start()

    def _follow(self, out):
        with out:
            for line in self.process.stderr:
                out.write(line)
                found = progress(line)
                if found:
                    sampled, visited, _, _, requests = found
                    self.events.append((time.monotonic(), sampled, visited, requests))
                if self.on_line:
                    self.on_line(line)

    def running(self) -> bool:
        return self.process.poll() is None

    def interrupt(self) -> None:
        """One Ctrl-C: the crawl finishes what is in flight and closes."""
        self.process.send_signal(signal.SIGINT)

    def kill(self) -> None:
        if self.running():
            self.process.kill()

    def wait(self, timeout: float | None = None) -> int:
        """Its exit code, once its output is all in the log."""
        code = self.process.wait(timeout)
        self._reader.join(10)
        return code

    def text(self) -> str:
        return self.log.read_text()


def crawl(proxy: str, stores: Stores, log: Path, settings=None, extra=(), **options) -> tuple[int, float, str]:
    """Run a crawl to its end; (exit code, wall seconds, its log)."""
    running = Crawl(crawl_command(proxy, stores, settings, extra), log, **options)
    code = running.wait()
    return code, time.monotonic() - running.started, running.text()


class SandboxProcess:
    """`scrapy sandbox serve WORLD` in a process of its own (its CPU apart from the crawl's); `proxy` is its URL.
    `settings`: an evolving world's clock (LANDING_CLOCK, LANDING_CLOCK_SPEED, LANDING_CLOCK_SINCE), as the crawl's."""

    def __init__(
        self, world: Path, latency_ms: float = 0, log: Path | None = None, settings=None, requests: bool = False
    ):
        stderr = open(log, "w") if log else subprocess.DEVNULL
        logging = ["--log"] if requests else []  # every request to `log`, as "GET url -> status"
        try:
            self.process = subprocess.Popen(
                scrapy_command(
                    "sandbox", "serve", world, "--port", 0, "--latency-ms", latency_ms, *logging, settings=settings
                ),
                cwd=PROJECT,
                stdout=subprocess.PIPE,
                stderr=stderr,
                text=True,
                # The remote web it stands for takes no CPU of the crawl's: in a session of its own, as a server's,
                # its share is not taken from the crawl's session group (autogroup) where the kernel groups by session.
                start_new_session=True,
            )
        finally:
            if log:
                stderr.close()  # the server holds its own copy
        self.proxy = self.process.stdout.readline().strip()  # the one stdout line: the proxy URL
        if not self.proxy.startswith("http://"):
            self.process.kill()
            raise RuntimeError(f"`scrapy sandbox serve {world}` did not start (see {log}): {self.proxy!r}")
        self.watched = psutil.Process(self.process.pid)

    def cpu(self) -> float:
        """CPU seconds the server has used so far."""
        return sum(self.watched.cpu_times()[:2])

    def close(self) -> None:
        stop(self.process, 10)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def redis_server(directory: Path) -> tuple[subprocess.Popen, str]:
    """Debian's redis-server on a free port, no persistence, for workers sharing a frontier; (process, redis:// URL).
    A machine without it is a RuntimeError saying what to install."""
    import redis

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    try:
        server = subprocess.Popen(
            ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"]
            + ["--dir", str(directory)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
    except FileNotFoundError:
        raise RuntimeError("redis-server is not installed (apt-get install redis-server)") from None
    client, deadline = redis.Redis(port=port), time.monotonic() + 10
    while True:
        try:
            client.ping()
            return server, f"redis://127.0.0.1:{port}/0"
        except redis.ConnectionError:
            if server.poll() is not None or time.monotonic() > deadline:
                server.kill()
                raise RuntimeError(f"redis-server did not answer on port {port}") from None
            time.sleep(0.05)


# ---------------------------------------------------------------------------------------------- watching


def tree(process: psutil.Process) -> list[psutil.Process]:
    """The process and its descendants; [] once it has gone."""
    try:
        return [process, *process.children(recursive=True)]
    except psutil.Error:
        return []


def tree_rss(process: psutil.Process) -> int:
    """Resident bytes of the process tree (shared pages counted in each member)."""
    total = 0
    for member in tree(process):
        try:
            total += member.memory_info().rss
        except psutil.Error:
            pass  # gone between listing and reading
    return total


def tree_pss(process: psutil.Process) -> int:
    """Proportional bytes of the tree: shared pages divided among the processes sharing them (Chromium's many
    processes are not counted many times over)."""
    total = 0
    for member in tree(process):
        try:
            total += member.memory_full_info().pss
        except psutil.Error:
            pass
    return total


def usage(process: psutil.Process, cpu_seen: dict) -> tuple[int, int, int, float]:
    """(RSS, tree RSS, tree PSS, own CPU seconds) now; cpu_seen keeps each tree member's latest CPU seconds, so
    that members that have gone still count."""
    rss = pss = own = mine = 0
    members = tree(process)
    if not members:  # ended (one of several workers stops before the others)
        return 0, 0, 0, cpu_seen.get(process.pid, 0.0)
    for member in members:
        try:
            memory, times = member.memory_full_info(), member.cpu_times()
        except psutil.Error:
            continue
        rss, pss = rss + memory.rss, pss + memory.pss
        cpu_seen[member.pid] = times.user + times.system
        if member.pid == process.pid:
            own, mine = memory.rss, cpu_seen[member.pid]
    return own, rss, pss, mine


class Sample(NamedTuple):
    t: float  # seconds since the crawls started
    visited: int
    requests: int
    rss: int  # the Scrapy processes
    tree_rss: int  # their trees, Chromium's processes included (shared pages counted in each)
    tree_pss: int  # the same, shared pages divided among the processes sharing them
    cpu: float  # seconds, the Scrapy processes
    tree_cpu: float  # seconds, the trees (members that have gone keep their last reading)


@dataclass
class Watched:
    """What watching crawls saw; times in seconds since they started."""

    events: list  # (t, sampled, visited, requests), summed over the crawls
    samples: list[Sample]
    seconds: float
    stopped: float  # when the stop was asked (or the end)
    codes: list[int]


def watch(crawls: list[Crawl], limit: int | None = None, time_limit: float | None = None, every: float = 1.0):
    """Sample crawls running side by side every `every` seconds until all end; one Ctrl-C each once they have
    visited `limit` DOIs together or run `time_limit` seconds, SIGKILL 120 s later. Killed if interrupted."""
    events, samples, cpu_seen, stopped = [], [], {}, None
    started = min(c.started for c in crawls)
    watched = [psutil.Process(c.process.pid) for c in crawls]
    try:
        while any(c.running() for c in crawls):
            now = time.monotonic()
            latest = [c.events[-1] if c.events else (now, 0, 0, 0) for c in crawls]
            sampled, visited, requests = (sum(e[k] for e in latest) for k in (1, 2, 3))
            if not events or events[-1][1:] != (sampled, visited, requests):
                events.append((now, sampled, visited, requests))
            memory = [usage(w, cpu_seen) for w in watched]
            if any(m[0] for m in memory):
                totals = (sum(m[k] for m in memory) for k in range(4))
                samples.append(Sample(now - started, visited, requests, *totals, sum(cpu_seen.values())))
            if stopped is None and ((limit and visited >= limit) or (time_limit and now - started >= time_limit)):
                stopped = now
                for c in crawls:
                    c.interrupt()
            if stopped is not None and now - stopped > 120:
                for c in crawls:
                    c.kill()
            time.sleep(every)
    finally:
        for c in crawls:
            c.kill()  # interrupted: leave no crawl behind
    codes = [c.wait() for c in crawls]
    ended = time.monotonic()
    return Watched(
        [(t - started, s, v, r) for t, s, v, r in events],
        samples,
        ended - started,
        (stopped or ended) - started,
        codes,
    )
