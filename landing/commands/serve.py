"""`scrapy serve [--port 8088] [--address 127.0.0.1] [--artifact PATH] [--no-http]`: the matcher as an HTTP service
(docs/service.md): a resident crawler and an aiohttp server on the same asyncio loop, and with LANDING_STREAM_IN a
Redis Streams consumer, until SIGTERM drains them."""

import asyncio
import contextlib
import logging
import signal
import sys
from pathlib import Path

from scrapy.commands import ScrapyCommand
from scrapy.exceptions import UsageError
from scrapy.utils.defer import deferred_from_coro
from scrapy.utils.ossignal import install_shutdown_handlers, signal_names

from landing import clock
from landing.commands.stores import config_of
from landing.config import trusted
from landing.match.loaded_artifact import ARTIFACT, ArtifactError, ArtifactHolder
from landing.match.resident import ResidentSpider

logger = logging.getLogger("landing.serve")


class Command(ScrapyCommand):
    requires_project = True
    # uvloop's transports are C: a service answering many small requests spends much of its CPU in asyncio's socket
    # reads and writes (bench/README.md "service.py"). Crawls keep asyncio's own: they wait on the web, not the loop,
    # and their browser driver is tested on it.
    default_settings = {"ASYNCIO_EVENT_LOOP": "uvloop.Loop"}

    def syntax(self):
        return "[--port N] [--address HOST] [--artifact PATH] [--no-http]"

    def short_desc(self):
        return "Serve matching over HTTP: GET and POST /match, /healthz, /metrics, /openapi.json"

    def add_options(self, parser):
        super().add_options(parser)
        parser.add_argument("--port", type=int, metavar="N", help="TCP port (LANDING_SERVE_PORT; 0: a free one)")
        parser.add_argument("--address", metavar="HOST", help="address to listen on (LANDING_SERVE_ADDRESS)")
        parser.add_argument(
            "--artifact", metavar="PATH", help=f"a {ARTIFACT} (default: the latest in LANDING_ARTIFACTS_DIR)"
        )
        parser.add_argument(
            "--no-http", action="store_true", help="listen on no port: only answer the stream LANDING_STREAM_IN"
        )

    def process_options(self, args, opts):
        super().process_options(args, opts)
        if opts.port is not None:
            self.settings.set("LANDING_SERVE_PORT", opts.port, priority="cmdline")
        if opts.address:
            self.settings.set("LANDING_SERVE_ADDRESS", opts.address, priority="cmdline")

    def run(self, args, opts):
        if args:
            raise UsageError("serve takes no inputs: send them to /match")
        cfg = config_of(self.settings)  # a bad setting is a usage error, named
        if opts.no_http and not cfg.stream_in:
            raise UsageError("--no-http answers LANDING_STREAM_IN only: set it (and LANDING_MATCH_REDIS)")
        clock.set_clock(cfg.clock, cfg.clock_speed, cfg.clock_since)
        path = opts.artifact or Path(cfg.artifacts_dir) / ARTIFACT
        try:
            holder = ArtifactHolder(path, required=bool(opts.artifact), trust=lambda d: trusted(d, self.settings))
        except ArtifactError as error:
            raise UsageError(str(error), print_help=False) from None
        if holder.warning:
            print(f"serve: {holder.warning}", file=sys.stderr)
        serving = Serving(self.crawler_process, holder, cfg, http=not opts.no_http)
        self.crawler_process.crawl(
            self.crawler_process.create_crawler(ResidentSpider), holder=holder, opened=serving.opened
        )
        from twisted.internet import reactor  # installed by now: the crawler process chose it

        reactor.addSystemEventTrigger("after", "startup", install_shutdown_handlers, serving.signalled)
        reactor.callWhenRunning(serving.begin)
        self.crawler_process.start(install_signal_handlers=False)
        self.exitcode = serving.ended()


class Serving:
    """The service's life: listen, announce once the Matcher is ready, drain on the first SIGTERM or Ctrl-C, stop at
    once on the second."""

    def __init__(self, process, holder: ArtifactHolder, cfg, http: bool = True):
        # Imported here, not with the command: Scrapy loads every command for any `scrapy ...`, and aiohttp's import
        # would cost each crawl and match process its time.
        from landing.serve.http import Service
        from landing.serve.stream_service import StreamService

        self.process, self.holder, self.cfg, self.http = process, holder, cfg, http
        self.service = Service(holder, cfg, logger)
        self.streams = StreamService(cfg, logger) if cfg.stream_in else None
        self.service.streams = self.streams  # its consumer's counters in /metrics
        self.matcher, self.address, self.signum, self.failed = None, None, None, False
        self.forced = self.stop_when_open = False

    def begin(self):
        from landing.serve.admission import collect_rarely

        collect_rarely()
        if self.http:
            asyncio.ensure_future(self._listen())

    async def _listen(self):
        try:
            self.address = await self.service.start(self.cfg.serve_address, self.cfg.serve_port)
        except OSError as error:
            logger.error("cannot listen on %s port %d: %s", self.cfg.serve_address, self.cfg.serve_port, error)
            self.failed = True
            self._stop_crawl()
            return
        self._announce()

    def opened(self, matcher):
        """The Matcher is ready (ResidentSpider's start)."""
        self.matcher = matcher
        self.service.ready(matcher)
        if self.streams is not None and self.signum is None and not self.stop_when_open:
            self.streams.start(matcher)
        if self.stop_when_open:
            self._stop_crawl()
        self._announce()

    def _announce(self):
        if self.address is None or self.matcher is None or self.signum is not None or self.stop_when_open:
            return
        host, port = self.address
        shown = f"[{host}]" if ":" in host else host
        loop = type(asyncio.get_running_loop())
        logger.info(
            "Serving on http://%s:%d (artifact %s, loop %s.%s)",
            shown,
            port,
            self.holder.version or "none",
            loop.__module__,
            loop.__name__,
        )

    def signalled(self, signum, _frame):
        from twisted.internet import reactor

        if self.signum is None:
            self.signum = signum
            reactor.callFromThread(lambda: asyncio.ensure_future(self._drain()))
        else:
            install_shutdown_handlers(signal.SIG_DFL)
            reactor.callFromThread(self._force)

    async def _drain(self):
        name = signal_names.get(self.signum, str(self.signum))
        seconds = self.cfg.serve_drain_seconds
        logger.info("%s: draining: no new connections; requests in flight have %g s to finish", name, seconds)
        drains = [self.service.drain(seconds)] + ([self.streams.drain(seconds)] if self.streams else [])
        finished = all(await asyncio.gather(*drains))  # the stream's entries held are answered before the close
        if self.matcher is not None:
            await self.matcher.close()
        logger.info("drained (%s); stopping", "every request finished" if finished else "some were cut short")
        self._stop_crawl()

    def _stop_crawl(self):
        if self.matcher is None:  # the engine is still starting: a stop now would be lost, and it would run on
            self.stop_when_open = True
            return
        deferred_from_coro(self.process.stop())  # a coroutine or a Deferred, as the process's kind has it

    def _force(self):
        from twisted.internet import reactor

        self.forced = True
        if self.matcher is not None:
            self.matcher.stop()  # downloads in flight are cancelled: the crawl's own stop would wait for them
        with contextlib.suppress(RuntimeError):  # already stopping
            reactor.stop()

    def ended(self) -> int:
        """The exit status: 0 after a drain, 128 + the signal after a forced stop, 1 when the service failed or its
        crawl ended by itself."""
        if self.forced:
            return 128 + self.signum
        if self.failed or self.signum is None:
            if not self.failed:
                logger.error("the matcher's crawl ended unasked (see the log above)")
            return 1
        return 0
