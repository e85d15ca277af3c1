"""`scrapy export KIND -o FILE.jsonl`: stored documents of one kind as JSON lines, with their namespaced keys."""

import json
import os
import sys

from scrapy.commands import ScrapyCommand
from scrapy.exceptions import UsageError

from landing.commands.stores import docs_of

KINDS = ("pid", "snapshot", "analysis", "report", "run", "sample", "visit")


class Command(ScrapyCommand):
    requires_project = True
    requires_crawler_process = False
    default_settings = {"LOG_ENABLED": False}

    def syntax(self):
        return f"{{{'|'.join(KINDS)}}} -o FILE.jsonl"

    def short_desc(self):
        return "Write the stored documents of one kind as JSON lines (-o - for stdout)"

    def add_options(self, parser):
        super().add_options(parser)
        parser.add_argument("-o", "--output", metavar="FILE", help="where to write; - for stdout")

    def run(self, args, opts):
        if len(args) != 1 or args[0] not in KINDS:
            raise UsageError(f"name one kind to export: {', '.join(KINDS)}")
        if not opts.output:
            raise UsageError("say where to write with -o FILE.jsonl (or -o - for stdout)")
        docs = docs_of(self.settings)
        count = 0
        try:
            if opts.output == "-":
                count = _write(docs.scan(args[0]), sys.stdout)
            else:
                partial = opts.output + ".partial"  # never leave a half file under the name asked for
                with open(partial, "w", encoding="utf-8") as out:
                    count = _write(docs.scan(args[0]), out)
                os.replace(partial, opts.output)
        except OSError as error:
            raise UsageError(f"cannot write {opts.output}: {error.strerror}", print_help=False) from None
        finally:
            docs.close()
        print(f"export: {count:,} {args[0]} documents to {opts.output}", file=sys.stderr)


def _write(docs, out) -> int:
    count = 0
    for count, doc in enumerate(docs, 1):  # noqa: B007 (the last count is the total)
        out.write(json.dumps(doc, ensure_ascii=False, sort_keys=True) + "\n")
    return count
