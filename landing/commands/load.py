"""`scrapy load FILE...`: put documents saved by a crawl whose store refused them into the configured store."""

import sys

from scrapy.commands import ScrapyCommand
from scrapy.exceptions import UsageError

from landing.commands.stores import docs_of
from landing.stores import StoreError, unwritten


class Command(ScrapyCommand):
    requires_project = True
    requires_crawler_process = False
    default_settings = {"LOG_ENABLED": False}

    def syntax(self):
        return "FILE [FILE...]"

    def short_desc(self):
        return "Load saved documents (LANDING_UNWRITTEN_DIR's JSON lines) into the document store"

    def run(self, args, opts):
        if not args:
            raise UsageError("name one or more files of saved documents (see LANDING_UNWRITTEN_DIR)")
        files = []
        for name in args:
            try:
                files.append((name, open(name, encoding="utf-8")))
            except OSError as error:
                raise UsageError(f"cannot read {name}: {error.strerror}", print_help=False) from None
        docs, loaded, bad = docs_of(self.settings), 0, 0
        try:
            for name, lines in files:
                with lines:
                    for number, row in unwritten.read(lines):
                        if isinstance(row, str):
                            print(f"load: {name}:{number}: {row}; skipped", file=sys.stderr)
                            bad += 1
                            continue
                        try:
                            docs.put(*row)
                        except (StoreError, TypeError, ValueError) as error:
                            print(f"load: {name}:{number}: {error}; skipped", file=sys.stderr)
                            bad += 1
                            continue
                        loaded += 1
            docs.flush()
        except StoreError as error:
            print(
                f"load: the document store refused the documents: {error}; nothing was lost, the files are "
                "unchanged: run this again later",
                file=sys.stderr,
            )
            self.exitcode = 1
            return
        finally:
            docs.abandon()
            docs.close()
        print(f"load: {loaded:,} documents loaded" + (f", {bad:,} lines skipped" if bad else ""))
        self.exitcode = 1 if bad else 0
