"""`scrapy status`: one line for an operator, from the document store and the artifacts directory, no crawler.

Exit status as a Nagios plugin's, so cron or a monitoring system can act on it: 0 healthy, 2 a health check failed,
3 unknown (the store cannot be read, a setting is bad, or it holds no run yet). docs/operations.md "Status".
"""

import json
from pathlib import Path

from scrapy.commands import ScrapyCommand
from scrapy.exceptions import UsageError

from landing import clock, config
from landing.artifacts import artifact_files
from landing.core.continuous import status_line
from landing.core.publishing.changes import news
from landing.stores import StoreError, docs_from

OK, CRITICAL, UNKNOWN = 0, 2, 3


class Command(ScrapyCommand):
    requires_project = True
    requires_crawler_process = False
    default_settings = {"LOG_ENABLED": False}

    def short_desc(self):
        return "One line on the sampler: prefix freshness, last version, budget, health (exit 2: unhealthy)"

    def run(self, args, opts):
        if args:
            raise UsageError("scrapy status takes no arguments (it reads LANDING_DOCS and LANDING_ARTIFACTS_DIR)")
        try:
            cfg = config.of_settings(self.settings)
        except config.SettingsError as error:
            return self._unknown(str(error).replace("\n", "; "))
        clock.set_clock(cfg.clock, cfg.clock_speed, cfg.clock_since)
        missing = _missing_sqlite(cfg.docs)
        if missing:  # opening it would create an empty store where the operator mistyped a path
            return self._unknown(f"no document store at {missing} (LANDING_DOCS)")
        try:
            line, healthy = _line(cfg)
        except (StoreError, OSError) as error:
            return self._unknown(f"cannot read the document store: {error}")
        if line is None:
            return self._unknown("the document store holds no run and no continuous state yet")
        print(line)
        self.exitcode = OK if healthy else CRITICAL

    def _unknown(self, why: str):
        print(f"status unknown: {why}")
        self.exitcode = UNKNOWN


def _line(cfg) -> tuple[str | None, bool]:
    now = clock.now()
    version = latest_version(cfg.artifacts_dir)
    docs = docs_from(cfg)
    try:
        state = docs.get("continuous", "state")
        if state is not None:
            bounds = status_line.Bounds(cfg.refresh_days, cfg.budget, cfg.health_export_hours)
            line, checks = status_line.continuous(state, docs.scan("prefix"), version, now, bounds)
            return line, all(check.ok for check in checks)
        runs = [run for run in docs.scan("run") if run.get("run/id")]
        if not runs:
            return None, False
        run = max(runs, key=lambda r: str(r.get("run/started") or ""))
        prefix = f"{run['run/id']}/"
        sampled = sum(1 for sample in docs.scan("sample", prefix=prefix) if sample.get("sample/dois") is not None)
        visited = sum(1 for _ in docs.scan("visit", prefix=prefix))
        return status_line.full_run(run, sampled, visited, version, now), True
    finally:
        docs.close()


def latest_version(directory) -> status_line.Version | None:
    """The latest version under the artifacts directory, with the count of pairs its changes.json lists as news
    (landing.core.publishing.changes; None for a first version, which has nothing to change from, and when that file is
    missing or unreadable: the line says less, never fails)."""
    found = artifact_files.versions(directory)
    if not found:
        return None
    try:
        changes = json.loads((found[-1] / artifact_files.CHANGES).read_text("utf-8"))
        changed = None if "from" in changes and changes["from"] is None else len(news(changes))
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        changed = None
    return status_line.Version(found[-1].name, changed)


def _missing_sqlite(url: str) -> Path | None:
    # The forms landing.stores.open_docs takes: sqlite:///relative.db, sqlite:////absolute.db.
    scheme, _, rest = url.strip().partition("://")
    if scheme.lower() != "sqlite" or not rest.startswith("/"):
        return None
    path = Path(rest[1:])
    return None if path.exists() else path
