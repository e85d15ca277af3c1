"""`scrapy crawl`, as Scrapy's, plus a settings check first and a failing exit when nothing could be sampled."""

import signal
import sys

from scrapy.commands.crawl import Command as ScrapyCrawl
from scrapy.exceptions import UsageError

from landing.config import problems
from landing.sampler.shutdown import STOPPED


class Command(ScrapyCrawl):
    def run(self, args, opts):
        found = problems(self.settings)
        if found:
            raise UsageError("\n".join(found), print_help=False)
        if len(args) != 1:
            return super().run(args, opts)
        # By name, as Scrapy's own command does: handed a Crawler object, the process would re-apply its settings
        # over it and undo what the add-on derived (landing.addon: its API pacing, its shared-frontier scheduler).
        self.crawler_process.crawl(args[0], **opts.spargs)
        [crawler] = self.crawler_process.crawlers
        self.crawler_process.start()
        if self.crawler_process.bootstrap_failed:
            self.exitcode = 1
            return
        stats = crawler.stats
        if stats.get_value("finish_reason") == "start_error":
            print("crawl: the crawl could not start its run (see the log's ERROR lines)", file=sys.stderr)
            self.exitcode = 1
            return
        if stats.get_value("landing/docs_unwritten") or stats.get_value("landing/docs_outage"):
            print(
                f"crawl: the document store refused writes; {stats.get_value('landing/docs_unwritten') or 0} "
                "documents were saved under LANDING_UNWRITTEN_DIR (see the log's ERROR lines)",
                file=sys.stderr,
            )
            self.exitcode = 1
            return
        if stats.get_value(STOPPED):
            print(
                f"crawl: stopped by {stats.get_value(STOPPED)}; what it held is written, and the same command resumes "
                "the run",
                file=sys.stderr,
            )
            self.exitcode = 128 + signal.Signals[stats.get_value(STOPPED)]  # as a shell reports a signal's end
            return
        for stat, message in FAILURES:
            if stats.get_value(stat):
                print(f"crawl: {message.format(stats.get_value(stat))}", file=sys.stderr)
                self.exitcode = 1
                return
        reason = str(stats.get_value("finish_reason") or "")
        if reason.startswith("closespider_") and not stats.get_value("landing/run/finished"):
            print(
                f"crawl: stopped by {reason.upper()} before its run was done; what it held is written, and the same "
                "command resumes the run",
                file=sys.stderr,
            )
            self.exitcode = UNFINISHED


# A run a CLOSESPIDER_* limit stopped: not a failure, not done either (sysexits' EX_TEMPFAIL: try again).
UNFINISHED = 75


# A crawl that "finished" without doing its run's work must not look like success.
FAILURES = (
    ("landing/run/unreadable", "the run's state in LANDING_DOCS could not be read or recorded: {}"),
    (
        "landing/run/listing_failed",
        "{} listing requests failed, so only the owners listed were planned and the run "
        "stays open: run the same command again to list the rest (see the log's ERROR "
        "lines)",
    ),
    (
        "landing/export_failed",
        "the artifacts were not exported: {}; what the crawl visited is stored, and `scrapy artifacts` exports it",
    ),
    ("landing/run/sampled_nothing", "no DOI could be sampled (see the log's ERROR lines)"),
    (
        "landing/run/unvisited",
        "{} sampled DOIs still have no visit after the plan was walked again, so the run stays open: run the "
        "same command again to visit them (see the log's ERROR lines)",
    ),
    (
        "landing/run/samples_failed",
        "{} owners could not be sampled, so the run stays open: run the same command "
        "again to sample them (see the log's ERROR lines)",
    ),
)
