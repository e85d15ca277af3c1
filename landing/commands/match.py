"""`scrapy match URL... | -i FILE | --evaluate [FILE]`: landing-page URLs to DOIs, one JSON line per input."""

import contextlib
import signal
import sys
import time
from pathlib import Path

from scrapy import signals
from scrapy.commands import ScrapyCommand
from scrapy.exceptions import UsageError
from scrapy.utils.defer import deferred_from_coro
from scrapy.utils.ossignal import install_shutdown_handlers, signal_names

from landing import clock
from landing.commands.stores import config_of, docs_of
from landing.config import trusted
from landing.core.matching.decisions import Decisions
from landing.core.matching.evaluation import render_levels, render_table, tabulate
from landing.core.matching.events import FORMATS, citing_page, event_line
from landing.core.matching.input_lines import dumps, text_of
from landing.match.labelled import LabelledError, read_labelled
from landing.match.loaded_artifact import ARTIFACT, ArtifactError, ArtifactHolder
from landing.match.matcher_spider import MatcherSpider


class Command(ScrapyCommand):
    requires_project = True

    def syntax(self):
        return (
            "[URL ...] [-i FILE|-] [--artifact PATH] [--no-fetch | --fetch-all] [--format event [--subj URL]] "
            "[--evaluate [FILE]]"
        )

    def short_desc(self):
        return "Match landing-page URLs (or DOIs, PIIs) to DOIs, with method, verification and evidence"

    def add_options(self, parser):
        super().add_options(parser)
        parser.add_argument("-i", "--input", metavar="FILE", help="inputs, one per line; - for stdin")
        parser.add_argument(
            "--artifact", metavar="PATH", help=f"a {ARTIFACT} (default: the latest in LANDING_ARTIFACTS_DIR)"
        )
        parser.add_argument(
            "--no-fetch",
            action="store_true",
            help="never fetch pages or resolve DOIs to pages; Handle API and Crossref lookups still run",
        )
        parser.add_argument(
            "--fetch-all",
            action="store_true",
            help="fetch every URL, not only those on a domain the artifact lists (LANDING_MATCH_FETCH=all)",
        )
        parser.add_argument(
            "--format",
            choices=FORMATS,
            default="flat",
            help="flat: one result a line (default); event: each line's Events, as Event Data consumers read them",
        )
        parser.add_argument("--subj", metavar="URL", help="with --format event: the citing page of every input")
        parser.add_argument(
            "--evaluate",
            nargs="?",
            const=True,
            default=None,
            metavar="FILE",
            help="tabulate right / wrong / no match per method and verification, on FILE's labelled inputs (URL/DOI "
            "vectors as JSON lines, or a landing-page corpus' manifest.csv or folder) or, without FILE, on every "
            "stored snapshot's final URL",
        )

    def process_options(self, args, opts):
        super().process_options(args, opts)
        if opts.fetch_all:
            if opts.no_fetch:
                raise UsageError("--fetch-all and --no-fetch contradict each other: give one", print_help=False)
            self.settings.set("LANDING_MATCH_FETCH", "all", priority="cmdline")
        if opts.evaluate is not None and opts.format == "event":
            raise UsageError("--evaluate prints a table, not results: give no --format event", print_help=False)
        if opts.subj is not None:
            if opts.format != "event":
                raise UsageError("--subj names the citing page of Events: give --format event", print_help=False)
            try:
                citing_page(opts.subj)
            except ValueError as bad:
                raise UsageError(f"--{bad}", print_help=False) from None

    def run(self, args, opts):
        cfg = config_of(self.settings)  # a bad setting is a usage error, named
        clock.set_clock(
            cfg.clock, cfg.clock_speed, cfg.clock_since
        )  # LANDING_MATCH_SEEN_WITHIN counts its days from it
        decisions = self._decisions(opts, Path(cfg.artifacts_dir))
        expected = None
        if opts.evaluate:
            if args or opts.input:
                raise UsageError("--evaluate takes its inputs from FILE or the store: give no URLs and no -i")
            expected = self._stored() if opts.evaluate is True else self._from_file(opts.evaluate)
            inputs = [url for url, _ in expected]
        else:
            inputs = list(args) + (self._read(opts.input) if opts.input else [])
            if not inputs:
                raise UsageError("give URLs, or -i FILE (one per line, - for stdin)")
        shape = (lambda result: event_line(result, opts.subj)) if opts.format == "event" else None
        printer = _Printer(len(inputs), quiet=opts.evaluate, shape=shape)
        crawler = self.crawler_process.create_crawler(MatcherSpider)
        crawler.signals.connect(printer.scraped, signal=signals.item_scraped)
        self.crawler_process.crawl(crawler, inputs=inputs, decisions=decisions, fetch=not opts.no_fetch)
        stop = _Stop(self.crawler_process, crawler)
        from twisted.internet import reactor  # installed by now: the crawler process chose it

        # Scrapy's own handlers stop gracefully, waiting for every input in progress and every request in flight,
        # retries included: the matcher's own stop drops them.
        reactor.addSystemEventTrigger("after", "startup", install_shutdown_handlers, stop.signalled)
        self.crawler_process.start(install_signal_handlers=False)
        printer.finish(stop.name)
        if stop.signum is not None:
            self.exitcode = 128 + stop.signum  # as a shell reports a process a signal ended
        if expected is not None:
            scored = [(doi, printer.results.get(n)) for n, (_, doi) in enumerate(expected)]
            for (text, doi), (_, got) in zip(expected, scored):
                wrong = got and got.get("doi") and got["doi"] != (doi or "").lower()
                if wrong:  # a wrong DOI is the line to look at first
                    print(
                        f"match: wrong DOI: {text[:200]!r} expected {doi} got {got['doi']} "
                        f"({got['method']}/{got['verification']} {got.get('checks', [])})",
                        file=sys.stderr,
                    )
            rows = tabulate(scored)
            print(render_table(rows))
            print()
            print(render_levels(rows))

    def _decisions(self, opts, artifacts_dir: Path) -> Decisions:
        path = opts.artifact or artifacts_dir / ARTIFACT
        try:  # config_of checked the settings that `trusted` reads
            held = ArtifactHolder(path, required=bool(opts.artifact), trust=lambda d: trusted(d, self.settings))
        except ArtifactError as error:
            raise UsageError(str(error), print_help=False) from None
        if held.warning:
            print(f"match: {held.warning}", file=sys.stderr)
        return held.decisions

    def _read(self, name):
        try:
            stream = sys.stdin.buffer if name == "-" else open(name, "rb")
        except OSError as error:
            raise UsageError(f"cannot read {name}: {error.strerror}", print_help=False) from None
        with stream:
            inputs, bad = read_inputs(stream)
        if bad:  # one stray byte in a million lines costs that line's match, never the run: said, not hidden
            print(
                f"match: {name}: {len(bad):,} line(s) not UTF-8 (first: line {bad[0]}), read with U+FFFD for "
                f"each bad byte",
                file=sys.stderr,
            )
        return inputs

    def _from_file(self, name):
        """(input, expected DOI or None) of a labelled file; rows naming no input are said, not matched."""
        try:
            labelled = read_labelled(name)
        except LabelledError as error:
            raise UsageError(str(error), print_help=False) from None
        if labelled.skipped:
            print(f"match: {name}: {labelled.skipped:,} row(s) name no input: not matched", file=sys.stderr)
        return list(labelled.pairs)

    def _stored(self):
        """(final URL, DOI) of every stored snapshot that reached a page: the sampler's labelled data."""
        docs = docs_of(self.settings)
        with docs:
            pairs = [
                (d["snapshot/final-url"], d["pid/doi"])
                for d in docs.scan("analysis")
                if not d.get("snapshot/error") and d.get("snapshot/final-url")
            ]
        if not pairs:
            raise UsageError("the store holds no snapshot that reached a page: crawl first", print_help=False)
        return pairs


class _Stop:
    """SIGTERM or Ctrl-C: the first stops the matcher at once (inputs in progress dropped, requests in flight cancelled)
    and the results so far are printed; a second stops the reactor; a third is the signal's own default."""

    def __init__(self, process, crawler):
        self.process, self.crawler, self.signum = process, crawler, None

    @property
    def name(self) -> str | None:
        return None if self.signum is None else signal_names.get(self.signum, str(self.signum))

    def signalled(self, signum, _frame):
        from twisted.internet import reactor

        if self.signum is None:
            self.signum = signum
            reactor.callFromThread(self._stop)
        else:
            install_shutdown_handlers(signal.SIG_DFL)
            reactor.callFromThread(self._force)

    def _stop(self):
        print(f"match: {self.name}: stopping; inputs in progress are dropped", file=sys.stderr, flush=True)
        if self.crawler.spider is not None:
            self.crawler.spider.stop_matching()
        deferred_from_coro(self.process.stop())  # a coroutine or a Deferred, as the process's kind has it

    def _force(self):
        from twisted.internet import reactor

        with contextlib.suppress(RuntimeError):  # already stopping
            reactor.stop()


class _Printer:
    """Prints results as JSON lines in input order, as soon as every earlier input is done; forgets what it printed
    (an evaluation keeps every result, to score them). shape: what a result is printed as (None: itself)."""

    def __init__(self, total, quiet=False, shape=None):
        self.total, self.quiet, self.results, self.next, self.done = total, quiet, {}, 0, 0
        self.shape = shape or (lambda result: result)
        self.started = self.shown = time.monotonic()

    def scraped(self, item, response=None, spider=None):
        number = item.pop("number")
        self.results[number] = item
        self.done += 1
        while self.next in self.results:
            if not self.quiet:
                print(dumps(self.shape(self.results.pop(self.next))).decode(), flush=True)
            self.next += 1
        now = time.monotonic()
        if now - self.shown >= 5:
            self.shown = now
            print(
                f"match: {self.done:,}/{self.total:,} inputs, {self.done / (now - self.started):.1f}/s",
                file=sys.stderr,
                flush=True,
            )

    def finish(self, stopped: str | None = None):
        """The closing line; results held back behind an input that never finished are printed now, in order.
        stopped: the signal's name when one stopped the run."""
        if not self.quiet:
            for number in sorted(n for n in self.results if n >= self.next):
                print(dumps(self.shape(self.results.pop(number))).decode(), flush=True)
        seconds = time.monotonic() - self.started
        missing = self.total - self.done
        why = f"stopped by {stopped}" if stopped else "lost (see the log)"
        print(
            f"match: {self.done:,} inputs in {seconds:.1f} s ({self.done / max(seconds, 1e-9):.1f}/s)"
            + (f"; {missing:,} {why}: the results after the first of them are printed last" if missing else ""),
            file=sys.stderr,
            flush=True,
        )


def read_inputs(lines) -> tuple[list[str], list[int]]:
    """The non-blank inputs of raw byte lines, stripped, read as every input is (landing.core.matching.input_lines:
    UTF-8, a BOM at the start dropped); and the numbers of the lines that were not UTF-8, read with U+FFFD for their
    bad bytes."""
    inputs, bad = [], []
    for number, raw in enumerate(lines, 1):
        line = text_of(raw)
        if "\ufffd" in line and not _utf8(raw):
            bad.append(number)
        if line.strip():
            inputs.append(line.strip())
    return inputs, bad


def _utf8(raw: bytes) -> bool:
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True
