"""`scrapy artifacts`: rebuild reports and export a new artifact version from the document store, no crawling;
`scrapy artifacts --diff [OLD [NEW]]`: what changed between two exported versions."""

import sys
from pathlib import Path

from scrapy.commands import ScrapyCommand
from scrapy.exceptions import UsageError

from landing import clock
from landing.artifacts import artifact_files
from landing.commands.stores import config_of, docs_of
from landing.core.publishing.changes import changes, prefix_owners, render_changes
from landing.core.web.labels import printable
from landing.publish import publish
from landing.publish.report_data import MEMBERS, read_jsonl_gz


class Command(ScrapyCommand):
    requires_project = True
    requires_crawler_process = False
    default_settings = {"LOG_ENABLED": False}

    def syntax(self):
        return "[--diff [OLD [NEW]]]"

    def short_desc(self):
        return "Rebuild reports and export artifacts (additive, versioned) from the stored analyses"

    def add_options(self, parser):
        super().add_options(parser)
        parser.add_argument(
            "--diff",
            action="store_true",
            help="print what changed between two versions, per prefix and per domain, and export "
            "nothing: OLD and NEW name versions under LANDING_ARTIFACTS_DIR/versions (or their "
            "paths); default: the last two, or OLD and the latest",
        )

    def run(self, args, opts):
        try:
            if opts.diff:
                self._diff(args)
            else:
                self._export(args)
        except artifact_files.ArtifactError as error:
            print(f"artifacts: {error}", file=sys.stderr)
            self.exitcode = 2

    def _export(self, args):
        if args:
            raise UsageError(
                "scrapy artifacts takes no arguments but --diff's (the directory is LANDING_ARTIFACTS_DIR)"
            )
        cfg = config_of(self.settings)
        clock.set_clock(cfg.clock, cfg.clock_speed, cfg.clock_since)  # the new version's name is read from it
        docs = docs_of(self.settings)
        try:
            summary = publish(
                docs,
                cfg.artifacts_dir,
                progress=lambda m: print(f"artifacts: {m}", file=sys.stderr, flush=True),
                exclusions=cfg.excluded_domains,
                report=cfg.export_report,
                agent=self.settings.get("USER_AGENT"),
            )
        finally:
            docs.close()
        print(
            f"artifacts: {summary['analyses']:,} analyses, {summary['reports']:,} reports; version {summary['version']}"
        )
        for name, lines in summary["lines"].items():
            print(f"  {name}: {lines:,} lines")
        if summary["report"]:
            print(f"  report: {summary['report']}")

    def _diff(self, args):
        directory = Path(config_of(self.settings).artifacts_dir)
        known = artifact_files.versions(directory)
        if len(args) > 2:
            raise UsageError("--diff takes at most two versions: OLD and NEW", print_help=False)
        chosen = [self._version(directory, name) for name in args]
        pair = chosen if len(chosen) == 2 else chosen + known[-1:] if chosen else known[-2:]
        if len(pair) < 2:
            raise UsageError(
                f"{directory / 'versions'} holds {len(known)} version(s): nothing to compare yet", print_help=False
            )
        old, new = pair
        # Both versions, and their owners, read before a line is printed.
        found = changes(artifact_files.load_version(old), artifact_files.load_version(new))
        owners = _owners(found, new, old)
        print(printable(f"artifacts: changes from {old.name} to {new.name}"))
        print(render_changes(found, owners), end="")

    @staticmethod
    def _version(directory: Path, name: str) -> Path:
        for candidate in (directory / "versions" / name, Path(name)):
            if candidate.is_dir():
                return candidate
        raise UsageError(
            f"no artifact version {name!r} (neither {directory / 'versions' / name} nor a directory)", print_help=False
        )


def _owners(found: dict, *versions: Path) -> dict:
    """{prefix: (member, name)} of the prefixes the changes name, from the first of `versions` whose members file
    (landing.publish.report_data) names each: the newer version's owner, else the older's; none for versions without."""
    wanted = {row["prefix"] for row in found["pairs"]}
    wanted |= {*found["prefixes"]["appeared"], *found["prefixes"]["disappeared"]}
    owners: dict = {}
    for version in versions:
        if wanted - owners.keys() and (version / MEMBERS).is_file():
            owners = {**prefix_owners(read_jsonl_gz(version / MEMBERS, "member"), wanted - owners.keys()), **owners}
    return owners
