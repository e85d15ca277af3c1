"""Run the real doi_sampler crawl (and the project's commands) in a subprocess against a running sandbox."""

import json
import os
import re
import sqlite3
import subprocess
from pathlib import Path
from urllib.parse import urlsplit

from landing_dev import runner

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
PLANNED = "SELECT COALESCE(SUM(json_extract(doc, '$.\"sample/size\"')), 0) FROM docs WHERE kind = 'sample'"


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
        self._exported: dict[str, tuple] = {}  # kind: (the store's state, its export's lines)

    def settings(self) -> list[str]:
        return [*runner.settings_args(self.stores.as_settings()), *self.extra]

    def _run(self, command, timeout) -> subprocess.CompletedProcess:
        return subprocess.run(command, cwd=PROJECT, capture_output=True, text=True, timeout=timeout, env=self.env)

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
        """`scrapy export KIND`'s documents; a SQLite store unchanged since the last export of `kind` is not exported
        again (each export is a process: ~2 CPU-seconds, and tests read the same crawl's kinds many times)."""
        state = self._state()
        if state is not None and self._exported.get(kind, (None,))[0] == state:
            return [json.loads(line) for line in self._exported[kind][1]]
        out = self.root / f"{kind}.jsonl"
        done = self.scrapy("export", kind, "-o", str(out))
        assert done.returncode == 0, done.stderr
        lines = out.read_text().splitlines()
        if state is not None and self._state() == state:  # no write while it ran
            self._exported[kind] = (state, lines)
        return [json.loads(line) for line in lines]

    def _state(self) -> tuple | None:
        """The SQLite store's files as they stand (any write changes one), or None for another store."""
        if not self.docs.startswith("sqlite:///"):
            return None
        db = self.docs.removeprefix("sqlite:///")
        found = []
        for path in (db, f"{db}-wal", f"{db}-journal"):
            try:
                stat = os.stat(path)
            except FileNotFoundError:
                found.append(None)
            else:
                found.append((stat.st_ino, stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns))
        return tuple(found)


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
