"""`scrapy sandbox generate|serve|truth|evolve`: make, serve, check and evolve an offline scholarly web (docs/sandbox.md).

Registered by the landing-dev distribution's entry point (dev/pyproject.toml). Scrapy loads every registered command's
class before running any command, so the sandbox's modules are imported only when this one runs.
"""

import argparse
import json
import sys
import time
from pathlib import Path

from scrapy.commands import ScrapyCommand
from scrapy.exceptions import UsageError

USAGE = """
  scrapy sandbox generate OUTDIR --dois N|--owners N [--seed S] [--scenarios a,b,...|all] [--corpus DIR] [--sites N]
                          [--evolve ...]
  scrapy sandbox serve WORLD [--port P] [--host H] [--latency-ms L] [--jitter-ms J] [--log] [-s LANDING_CLOCK=...]
  scrapy sandbox truth WORLD     (re-walk a world, e.g. a hand-written one, and rewrite truth.jsonl)
  scrapy sandbox evolve WORLD [--seed S] [--start T] [--days D] [--moves R] [--registry-moves S] [--updates R]
                              [--new-owners N] [--new-prefixes N] [--meta-flips R] [--outages R] [--outage-hours H]
                              [--events FILE]
                              (write WORLD/timeline.jsonl)"""
COMMANDS = ("generate", "serve", "truth", "evolve")


def _progress(message):
    print(f"sandbox: {message}", file=sys.stderr, flush=True)


class Command(ScrapyCommand):
    requires_project = False
    requires_crawler_process = False
    default_settings = {"LOG_ENABLED": False}

    def syntax(self):
        return "generate|serve|truth|evolve ..."

    def short_desc(self):
        return "Generate, serve, re-check or evolve an offline sandbox of the scholarly web"

    def long_desc(self):
        return self.short_desc() + "\n" + USAGE

    def add_options(self, parser: argparse.ArgumentParser):
        from landing_dev.sandbox.evolution import Rates

        super().add_options(parser)
        parser.add_argument("--dois", type=int, help="generate: number of DOIs in the world")
        parser.add_argument(
            "--owners",
            type=int,
            help="generate, instead of --dois: the real registries' shape, "
            "N Crossref members and DataCite clients with long-tailed "
            "sizes, some on shared platform hosts (55000: a full run "
            "samples 500,000 DOIs)",
        )
        parser.add_argument("--seed", type=int, default=0, help="generate: random seed (default 0)")
        parser.add_argument(
            "--sites", type=int, default=1, help="generate: journal sites of its own each owner's pages spread over (1)"
        )
        parser.add_argument(
            "--scenarios",
            help="generate: comma-separated scenarios to give the DOIs in turn, or 'all' (default: the realistic mix)",
        )
        parser.add_argument(
            "--corpus",
            help="generate: also serve the real pages of this landing-page corpus "
            "folder (manifest.csv + pages/), read from where they lie",
        )
        parser.add_argument("--port", type=int, default=0, help="serve: port (default: a free one)")
        parser.add_argument("--host", default="127.0.0.1", help="serve: address to listen on")
        parser.add_argument("--latency-ms", type=float, default=0, help="serve: delay added to every response")
        parser.add_argument("--jitter-ms", type=float, default=0, help="serve: random extra delay, 0..J ms")
        parser.add_argument("--log", action="store_true", help="serve: log every request to stderr")
        parser.add_argument(
            "--evolve", action="store_true", help="generate: also write timeline.jsonl, as `evolve` does"
        )
        rates = Rates()
        for name, kind, meaning in (
            (
                "start",
                str,
                "the simulated instant the timeline starts at: give the crawl and the server it as LANDING_CLOCK",
            ),
            ("days", float, "the horizon in simulated days"),
            ("moves", float, "share of the sites that move to a new domain per 30 days"),
            (
                "registry-moves",
                float,
                "share of the moves whose owners update their DOIs' registered URLs (the others keep a redirect)",
            ),
            ("updates", float, "share of the DOIs re-deposited a day with no URL change"),
            ("new-owners", float, "Crossref members or DataCite clients that appear per week"),
            ("new-prefixes", float, "prefixes existing owners add per week"),
            (
                "meta-flips",
                float,
                "share of the sites with DOI meta tags that lose them per 30 days (half get them back)",
            ),
            ("outages", float, "share of the sites that go down per 30 days"),
            ("outage-hours", float, "an outage's mean length in hours"),
        ):
            default = getattr(rates, name.replace("-", "_"))
            parser.add_argument(f"--{name}", type=kind, default=default, help=f"evolve: {meaning} (default {default})")
        parser.add_argument(
            "--events", help="evolve: a JSON list of the site events to plant ({at, kind, host...}) instead of rates"
        )

    def run(self, args, opts):
        if len(args) != 2 or args[0] not in COMMANDS:
            raise UsageError("expected: " + USAGE.strip(), print_help=False)
        from landing.config import SettingsError
        from landing_dev.sandbox.world import WorldError

        try:
            getattr(self, "_" + args[0])(args[1], opts)
        except (WorldError, SettingsError, ValueError, OSError) as error:
            print(f"sandbox: {error}", file=sys.stderr)
            self.exitcode = 2

    def _generate(self, outdir, opts):
        from landing_dev.sandbox import scenarios
        from landing_dev.sandbox.generator import generate

        if (opts.dois is None) == (opts.owners is None):
            raise UsageError("generate needs --dois N or --owners N (not both)", print_help=False)
        only = None
        if opts.scenarios:
            only = list(scenarios.ALL) if opts.scenarios == "all" else opts.scenarios.split(",")
        started = time.monotonic()
        stats = generate(
            outdir, opts.dois, opts.seed, only, _progress, corpus=opts.corpus, owners=opts.owners, sites=opts.sites
        )
        print(
            f"sandbox: wrote {outdir}: {stats['dois']:,} DOIs, {stats['members']} Crossref members, "
            f"{stats['clients']} DataCite clients, {stats['hosts']} sites in {time.monotonic() - started:.1f}s"
        )
        print(f"sandbox: expected failures (truth.jsonl 'error'): {stats['errors']}")
        if opts.evolve:
            self._evolve(outdir, opts)

    def _serve(self, directory, opts):
        from landing import clock, config
        from landing_dev.sandbox.server import serve_forever
        from landing_dev.sandbox.world import World

        # An evolving world runs on the crawl's clock: give both the same LANDING_CLOCK, _SPEED and _SINCE.
        s = self.settings
        clock.set_clock(config.clock_value(s), config.clock_speed(s), config.clock_since(s))
        world = World(directory)

        def announce(url):
            print(f"sandbox: serving {directory} at {url} (Ctrl-C to stop)", file=sys.stderr, flush=True)
            print(url, flush=True)  # stdout carries only the proxy URL, for scripts: LANDING_SANDBOX=$(...)

        serve_forever(
            world, opts.port, opts.host, opts.latency_ms, opts.jitter_ms, announce, log=_progress if opts.log else None
        )

    def _evolve(self, directory, opts):
        from landing_dev.sandbox.evolution import Rates, evolve

        rates = Rates(**{name: getattr(opts, name) for name in Rates.__dataclass_fields__})
        events = json.loads(Path(opts.events).read_text("utf-8")) if opts.events else None
        if events is not None and not isinstance(events, list):
            raise ValueError(f"{opts.events}: expected a JSON list of events")
        counts = evolve(directory, rates, opts.seed, events)
        print(f"sandbox: wrote {directory}/timeline.jsonl from {rates.start} for {rates.days:g} days: {counts}")

    def _truth(self, directory, opts):
        from landing_dev.sandbox.truth import write_truth

        stats = write_truth(directory, progress=_progress)
        print(f"sandbox: wrote {directory}/truth.jsonl; failures: {stats['errors']}")
