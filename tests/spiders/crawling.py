"""Run the real doi_sampler crawl (and the project's commands) in a subprocess against a running sandbox."""
import json
import os
import subprocess
import sys
from pathlib import Path

PROJECT = Path(__file__).resolve().parents[2]


class Stores:
    """One crawl target: a document store, a blob store and an artifacts directory under `root`."""

    def __init__(self, root: Path, artifacts: Path | None = None, blobs: str | None = None, env: dict | None = None,
                 docs: str | None = None, extra: tuple[str, ...] = ()):
        self.root, self.extra = root, list(extra)  # extra: more `-s NAME=VALUE` for every command
        self.docs = docs or f"sqlite:///{root / 'landing.db'}"
        self.artifacts = artifacts or root / "artifacts"
        self.blobs = blobs or f"file://{root / 'blobs'}"
        self.env = {**os.environ, **(env or {})}

    def settings(self) -> list[str]:
        return ["-s", f"LANDING_DOCS={self.docs}", "-s", f"LANDING_UNWRITTEN_DIR={self.root / 'unwritten'}",
                "-s", f"LANDING_BLOBS={self.blobs}",
                "-s", f"LANDING_ARTIFACTS_DIR={self.artifacts}", *self.extra]

    def scrapy(self, *args, overrides=(), timeout=300) -> subprocess.CompletedProcess:
        """Run a scrapy command on these stores; `overrides` come last, so they win."""
        return subprocess.run([sys.executable, "-m", "scrapy", *args, *self.settings(), *overrides], cwd=PROJECT,
                              capture_output=True, text=True, timeout=timeout, env=self.env)

    def crawl(self, proxy: str, *extra) -> subprocess.CompletedProcess:
        done = self.scrapy("crawl", "doi_sampler", "-s", f"LANDING_SANDBOX={proxy}", "-s", "TELNETCONSOLE_ENABLED=False",
                           "-s", "LANDING_PROGRESS_INTERVAL=1", *extra)
        assert done.returncode == 0, done.stderr[-3000:]
        assert "'finish_reason': 'finished'" in done.stderr, done.stderr[-3000:]
        return done

    def export(self, kind: str) -> list[dict]:
        out = self.root / f"{kind}.jsonl"
        done = self.scrapy("export", kind, "-o", str(out))
        assert done.returncode == 0, done.stderr
        return [json.loads(line) for line in out.read_text().splitlines()]


def truth_of(world: Path) -> dict:
    return {t["doi"]: t for t in map(json.loads, open(world / "truth.jsonl"))}
