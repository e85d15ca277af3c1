"""`scrapy report -o DIR`: the report directory of the stored reports and the exported artifact versions; `scrapy
report --member ID|NAME`: one member's alert in the latest version, and where its page is."""

import sys
from pathlib import Path

from scrapy.commands import ScrapyCommand
from scrapy.exceptions import UsageError

from landing.artifacts.artifact_files import ArtifactError
from landing.commands.stores import config_of, docs_of
from landing.core.publishing.alerts import who
from landing.core.web.labels import printable
from landing.publish import draw_from_store
from landing.publish.member_alert import MemberNotFound, member_alert
from landing.report.directory import INDEX, NotAReport


class Command(ScrapyCommand):
    requires_project = True
    requires_crawler_process = False
    default_settings = {"LOG_ENABLED": False}

    def syntax(self):
        return "-o DIR | --member ID|NAME"

    def short_desc(self):
        return "Write the report directory (index, a page per member and domain, tables as CSV and JSON)"

    def add_options(self, parser):
        super().add_options(parser)
        parser.add_argument("-o", "--output", metavar="DIR", help="the report directory to write (new, or replaced)")
        parser.add_argument(
            "--member",
            metavar="ID|NAME",
            help="print a member's alert in the latest version (crossref/340; 340 when one agency uses it; or a name"
            " or part of one: several matches are listed, exit 2)",
        )

    def run(self, args, opts):
        if opts.member is not None:
            if args or opts.output:
                raise UsageError("scrapy report --member ID takes nothing else", print_help=False)
            self.exitcode = print_member(Path(config_of(self.settings).artifacts_dir), opts.member)
            return
        if args or not opts.output:
            raise UsageError("scrapy report takes -o DIR and nothing else", print_help=False)
        if opts.output.lower().endswith(".html"):
            raise UsageError(
                "scrapy report -o takes a directory (the report is index.html and a page per member and domain)",
                print_help=False,
            )
        artifacts_dir = Path(config_of(self.settings).artifacts_dir)
        docs = docs_of(self.settings)
        try:
            found = draw_from_store(docs, artifacts_dir, opts.output)
        except (ArtifactError, NotAReport) as error:
            print(f"report: {error}", file=sys.stderr)
            self.exitcode = 2
            return
        finally:
            docs.close()
        if found is None:
            raise UsageError("the store holds no report: crawl first, or run scrapy artifacts", print_help=False)
        print(
            f"report: {Path(opts.output) / INDEX} ({found['totals']['dois']:,} DOIs, {found['totals']['prefixes']:,} prefixes, "
            f"{found['totals']['domains']:,} domains)"
        )


def print_member(artifacts_dir: Path, ident: str) -> int:
    """Print a member's alert (or that it has nothing to fix) and where its page is; the exit status."""
    try:
        member, found, version, page = member_alert(artifacts_dir, ident)
    except (MemberNotFound, ArtifactError) as error:
        print(f"report: {printable(str(error))}", file=sys.stderr)
        return 2
    print(f"{who(member)}, version {version.name}:")
    print(found["summary"] if found else "nothing to fix, and nothing got worse since the previous version.")
    print(f"page: {page}")
    return 0
