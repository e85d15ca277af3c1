"""Run the real doi_sampler crawl (and the project's commands) in a subprocess against a running sandbox."""

import json
import os
import re
import sqlite3
import subprocess
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import urlsplit

from scrapy.settings import Settings

from landing.commands.stores import docs_of
from landing_dev import runner
from tests import forked

PROJECT = runner.PROJECT
# Analysis fields and their truth.jsonl names.
FIELDS = (
    ("analysis/meta-tag-correctness", "meta_tag_correctness"),
    ("analysis/doi-in-text", "doi_in_text"),
    ("analysis/doi-in-hyperlinks", "doi_in_hyperlinks"),
    ("analysis/doi-in-meta-tags", "doi_in_meta_tags"),
)


# The sandbox's request log: a DOI's resolver request, and an owner's sample request (Crossref or DataCite).
RESOLVER = re.compile(r"GET https://doi\.org/(\S+) -> ")
SAMPLE = re.compile(
    r"GET http://api\.crossref\.org/works\?sample=\d+&filter=member(?::|%3A)(\w+)|"
    r"GET http://api\.datacite\.org/dois\?client-id=([\w.%-]+)&random=true"
)
# Samples a third the default size, for a crawl whose claims hold at any size. Not for two crawls compared with each
# other: the sandbox draws each sample at random, and only an owner's whole catalogue is the same twice.
SMALL_SAMPLE = ("-s", "LANDING_SAMPLE_MIN=5", "-s", "LANDING_SAMPLE_MAX=30")
PLANNED = "SELECT COALESCE(SUM(json_extract(doc, '$.\"sample/size\"')), 0) FROM docs WHERE kind = 'sample'"


def stored(db, kind) -> dict[str, dict]:
    """{id: document} of one kind in a crawl's SQLite store, read while the crawl writes it; {} before it exists."""
    try:
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5) as con:
            rows = con.execute("SELECT id, doc FROM docs WHERE kind = ?", (kind,)).fetchall()
    except sqlite3.OperationalError:  # not created yet
        return {}
    return {doc_id: json.loads(doc) for doc_id, doc in rows}


def wait_for(what: str, check, seconds: float):
    """check()'s first true value, looked for every 100 ms; the test fails after `seconds` of waiting."""
    deadline = time.monotonic() + seconds
    while not (found := check()):
        assert time.monotonic() < deadline, f"waited {seconds} s for {what}"
        time.sleep(0.1)
    return found


def continuous_state(db) -> dict:
    """A continuous run's state document (continuous/state), or {} before the run wrote one."""
    return stored(db, "continuous").get("state") or {}


def count(db, sql) -> int:
    """A count read from a crawl's SQLite store while it runs; 0 before the store exists."""
    try:
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5) as con:
            return con.execute(sql).fetchone()[0]
    except sqlite3.OperationalError:  # not created yet
        return 0


class Stores:
    """One crawl target: a document store, a blob store and an artifacts directory under `root`
    (landing_dev.runner.Stores, with the environment and the command runs of a test)."""

    def __init__(
        self,
        root: Path,
        artifacts: Path | None = None,
        blobs: str | None = None,
        env: dict | None = None,
        docs: str | None = None,
        extra: tuple[str, ...] = (),
    ):
        self.root, self.extra = root, list(extra)  # extra: more `-s NAME=VALUE` for every command
        named = {"docs": docs, "blobs": blobs, "artifacts": artifacts}
        # The HTML report costs a child process per export (~2 s): tests/report/ draw it; other crawls skip it.
        self.stores = runner.Stores.under(
            root, settings={"LANDING_EXPORT_REPORT": False}, **{k: v for k, v in named.items() if v}
        )
        self.docs, self.artifacts, self.blobs = self.stores.docs, self.stores.artifacts, self.stores.blobs
        self.env = {**os.environ, **(env or {})}

    def settings(self) -> list[str]:
        return [*runner.settings_args(self.stores.as_settings()), *self.extra]

    def _run(self, command, timeout) -> subprocess.CompletedProcess:
        return forked.run(command, PROJECT, self.env, timeout)  # Scrapy imported once: tests/forked.py

    def scrapy(self, *args, overrides=(), timeout=300) -> subprocess.CompletedProcess:
        """Run a scrapy command on these stores; `overrides` come last, so they win."""
        return self._run([*runner.scrapy_command(*args), *self.settings(), *overrides], timeout)

    def crawl_command(self, proxy: str | None, *extra) -> list[str]:
        """The crawl through the sandbox at `proxy` (None: the endpoints `extra` names), with `extra` last."""
        return runner.crawl_command(proxy, self.stores, extra=[*self.extra, *extra])

    def try_crawl(self, proxy: str | None = None, *extra, overrides=(), timeout=300) -> subprocess.CompletedProcess:
        """A crawl whatever its end (`crawl` asserts it finished); `overrides` come last, so they win."""
        return self._run(self.crawl_command(proxy, *extra, *overrides), timeout)

    def crawl(self, proxy: str, *extra) -> subprocess.CompletedProcess:
        """A crawl with the http driver unless `extra` names another: the truth comparisons are the plain client's
        (tests/browser/test_driver_crawl.py is where auto and browser are compared with the browser's truth)."""
        done = self.try_crawl(proxy, "-s", "LANDING_PROGRESS_INTERVAL=1", "-s", "LANDING_DRIVER=http", *extra)
        assert done.returncode == 0, done.stderr[-3000:]
        assert "'finish_reason': 'finished'" in done.stderr, done.stderr[-3000:]
        return done

    def export(self, kind: str) -> list[dict]:
        """The stored documents of one kind as `scrapy export KIND` writes them, read here through the store the
        command opens (`docs_of` on the same settings): a process per read cost ~1 CPU-second and tests read
        crawls many times. tests/commands/test_analyze_export.py runs the command itself (`export_command`)."""
        settings = Settings()
        settings.setmodule("landing.settings", priority="project")
        settings.setdict(runner.pairs(self.settings()[1::2]), priority="cmdline")
        docs = docs_of(settings)
        try:
            return [json.loads(json.dumps(doc, ensure_ascii=False, sort_keys=True)) for doc in docs.scan(kind)]
        finally:
            docs.close()

    def export_command(self, kind: str) -> list[dict]:
        """`scrapy export KIND`'s documents, the command run in its own process as a user runs it."""
        out = self.root / f"{kind}.jsonl"
        done = self.scrapy("export", kind, "-o", str(out))
        assert done.returncode == 0, done.stderr
        return [json.loads(line) for line in out.read_text().splitlines()]


@contextmanager
def at_once(request, prepared: dict) -> Iterator[dict]:
    """{name: a future of its crawl}, the crawls of the fixtures `name` that the tests use (after -k; a module
    fixture's: its module's tests) all started. prepared[name]() runs here, on pytest's thread (worlds, fixtures,
    stores), and returns the crawl, run with the others on threads of their own; a crawl asked for by name and not yet
    started (its fixture reached through getfixturevalue) starts then. A crawl spends much of its time waiting (its
    process starting, each host's pace, Chromium settling, its tail of few hosts), so crawls take less together than
    one after the other (bench/README.md "The suite's time")."""
    items = [i for i in request.session.items if request.scope == "session" or i.path == request.path]  # its module's
    used = {name for item in items for name in getattr(item, "fixturenames", ())}
    with ThreadPoolExecutor(max(len(prepared), 1)) as pool:
        started = _Started(pool, prepared)
        for name in [name for name in prepared if name in used]:
            started[name]  # noqa: B018 (starts it)
        yield started


class _Started(dict):
    """Futures by name; a name not yet started starts when asked for."""

    def __init__(self, pool: ThreadPoolExecutor, prepared: dict):
        super().__init__()
        self.pool, self.prepared = pool, prepared

    def __missing__(self, name):
        future = self[name] = self.pool.submit(self.prepared[name]())
        return future


def truth_of(world: Path) -> dict:
    return {t["doi"]: t for t in map(json.loads, open(world / "truth.jsonl"))}


def disagreements(docs, truth, expect, reachable: bool) -> list[tuple]:
    """(scenario, doi, got, want) for analysis docs that differ from `expect(truth)` = (final URL, error).

    reachable: compare the DOIs truth says reach a page (final URL, its domain and the analysis fields), or the
    others (their failure class).
    """
    wrong = []
    for doc in docs:
        t = truth[doc["pid/doi"]]
        final_url, error = expect(t)
        if (error is None) != reachable:
            continue
        if reachable:
            got = [doc["snapshot/final-url"], doc["snapshot/final-url-domain"], doc["snapshot/error"]]
            want = [final_url, urlsplit(final_url).hostname, None]
            got += [doc[mine] for mine, _ in FIELDS]
            want += [t[theirs] for _, theirs in FIELDS]
        else:
            got, want = [doc["snapshot/error"]], [error]
        if got != want:
            wrong.append((t["scenario"], doc["pid/doi"], got, want))
    return wrong
