"""`scrapy report -o report.html`: the HTML report of the stored reports and the exported artifact versions."""

import sys
from pathlib import Path

from scrapy.commands import ScrapyCommand
from scrapy.exceptions import UsageError

from landing.artifacts.files import CorruptArtifact
from landing.commands.stores import config_of, docs_of
from landing.publish import draw_from_store


class Command(ScrapyCommand):
    requires_project = True
    requires_crawler_process = False
    default_settings = {"LOG_ENABLED": False}

    def syntax(self):
        return "-o FILE"

    def short_desc(self):
        return "Write the HTML report (totals, correctness, failures, changes, trend) of the stored reports"

    def add_options(self, parser):
        super().add_options(parser)
        parser.add_argument("-o", "--output", metavar="FILE", help="where to write the report (.html)")

    def run(self, args, opts):
        if args or not opts.output:
            raise UsageError("scrapy report takes -o FILE and nothing else", print_help=False)
        artifacts_dir = Path(config_of(self.settings).artifacts_dir)
        docs = docs_of(self.settings)
        try:
            found = draw_from_store(docs, artifacts_dir, opts.output)
        except CorruptArtifact as error:
            print(f"report: {error}", file=sys.stderr)
            self.exitcode = 2
            return
        finally:
            docs.close()
        if found is None:
            raise UsageError("the store holds no report: crawl first, or run scrapy artifacts", print_help=False)
        print(
            f"report: {Path(opts.output)} ({found['totals']['dois']:,} DOIs, {found['totals']['prefixes']:,} prefixes, "
            f"{found['totals']['domains']:,} domains)"
        )
