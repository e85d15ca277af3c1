"""`scrapy prune [--dry-run]`: apply the retention once to LANDING_DOCS, LANDING_BLOBS and LANDING_ARTIFACTS_DIR
(landing.publish.pruning; docs/continuous.md "Retention")."""

import sys

from scrapy.commands import ScrapyCommand
from scrapy.exceptions import UsageError

from landing import clock
from landing.commands.stores import blobs_of, config_of, docs_of
from landing.core.web.labels import printable
from landing.publish.pruning import grace, prune
from landing.stores import StoreError


class Command(ScrapyCommand):
    requires_project = True
    requires_crawler_process = False
    default_settings = {"LOG_ENABLED": False}

    def syntax(self):
        return "[--dry-run]"

    def short_desc(self):
        return (
            "Apply the retention: delete old versions' reports and compress their artifact files (every version's "
            "stay), and delete the snapshots, analyses and blobs not kept"
        )

    def add_options(self, parser):
        super().add_options(parser)
        parser.add_argument(
            "--dry-run",
            action="store_true",
            help="delete nothing: print the versions whose report would go and count the rest",
        )

    def run(self, args, opts):
        if args:
            raise UsageError(
                "scrapy prune takes no arguments (the stores are LANDING_DOCS, LANDING_BLOBS and LANDING_ARTIFACTS_DIR)"
            )
        cfg = config_of(self.settings)
        clock.set_clock(cfg.clock, cfg.clock_speed, cfg.clock_since)  # versions are as old as the clock says
        docs = docs_of(self.settings)
        try:
            blobs = blobs_of(self.settings)
        except UsageError:
            docs.close()
            raise
        try:
            summary = prune(
                docs,
                blobs,
                cfg.artifacts_dir,
                clock.now(),
                cfg.keep_reports_days,
                cfg.keep_snapshots,
                dry_run=opts.dry_run,
                grace_seconds=grace(cfg.docs_outage_max),
                progress=lambda m: print(f"prune: {m}", file=sys.stderr, flush=True),
            )
        except StoreError as error:
            print(printable(f"prune: {error}"), file=sys.stderr)
            self.exitcode = 1
            return
        finally:
            blobs.close()
            docs.close()
        if opts.dry_run:
            for name in summary["deleted_reports"]:
                print(printable(f"  would delete the report of version {name}"))
        print(printable(line(summary)))


def line(summary: dict) -> str:
    """The one-line summary of a pruning."""
    verb = "would delete" if summary["dry_run"] else "deleted"
    blobs = (
        f"{summary['blobs_deleted']:,} blobs (kept {summary['blobs_kept']:,}, and {summary['blobs_recent']:,} too "
        "recent to judge)"
        if summary["blobs_checked"]
        else "no blob (no snapshot in the document store)"
    )
    said = (
        f"prune: {verb} {summary['reports_deleted']:,} old versions' reports (kept {summary['reports_kept']:,}), "
        f"compressing {summary.get('versions_compressed', 0):,} versions' artifact files (every version's kept), "
        f"{summary['snapshots_deleted']:,} snapshots and {summary['analyses_deleted']:,} analyses of "
        f"{summary['dois']:,} DOIs (kept {summary['snapshots_kept']:,} snapshots), {blobs}"
    )
    if summary.get("samples_deleted") or summary.get("visits_deleted"):
        said += (
            f"; {summary['samples_deleted']:,} samples and {summary['visits_deleted']:,} visits of the continuous "
            "run's closed rounds"
        )
    if summary["dois_skipped"]:
        said += f"; kept whole {summary['dois_skipped']:,} DOIs whose documents are not under their ids"
    if summary["unrecognised"]:
        said += f"; not versions, left alone: {', '.join(summary['unrecognised'])}"
    return said
