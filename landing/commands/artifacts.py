"""`scrapy artifacts`: rebuild reports and export a new artifact version from the document store, no crawling."""
import sys

from scrapy.commands import ScrapyCommand
from scrapy.exceptions import UsageError

from landing.artifacts.rebuild import rebuild
from landing.commands.stores import docs_of
from landing.config import SettingsError, exclusions


class Command(ScrapyCommand):
    requires_project = True
    requires_crawler_process = False
    default_settings = {"LOG_ENABLED": False}

    def short_desc(self):
        return "Rebuild reports and export artifacts (additive, versioned) from the stored analyses"

    def run(self, args, opts):
        if args:
            raise UsageError("scrapy artifacts takes no arguments (the directory is LANDING_ARTIFACTS_DIR)")
        try:
            excluded = exclusions(self.settings)
        except SettingsError as error:
            raise UsageError(str(error), print_help=False)
        docs = docs_of(self.settings)
        try:
            summary = rebuild(docs, self.settings.get("LANDING_ARTIFACTS_DIR"),
                              progress=lambda m: print(f"artifacts: {m}", file=sys.stderr, flush=True),
                              exclusions=excluded)
        finally:
            docs.close()
        print(f"artifacts: {summary['analyses']:,} analyses, {summary['reports']:,} reports; version {summary['version']}")
        for name, lines in summary["lines"].items():
            print(f"  {name}: {lines:,} lines")
