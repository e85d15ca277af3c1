"""Scrapy's asyncio reactor in a daemon thread of its own, started once per process, for the Python API.

A Twisted reactor cannot restart once stopped, so the API (landing.match.api) never stops it: each call runs its
crawl on this one reactor, from whichever thread or event loop calls. The reactor is Scrapy's own
AsyncCrawlerProcess's (its DNS resolver, thread pool and logging set up as `scrapy match` has them), started without
signal handlers: the calling program's Ctrl-C stays the calling program's.
"""

import asyncio
import concurrent.futures
import threading
from collections.abc import Coroutine

from scrapy.crawler import AsyncCrawlerProcess
from scrapy.settings import Settings
from scrapy.utils.reactor import is_reactor_installed

NAME = "landing-reactor"


class ReactorError(RuntimeError):
    """This process's reactor cannot run the API's crawls; the message says what to do instead."""


class ReactorThread:
    """The reactor running in its thread; `submit` runs a coroutine on its loop."""

    def __init__(self, settings: Settings):
        """Starts the thread; `settings` are read for the reactor's own parts (TWISTED_DNS_RESOLVER,
        REACTOR_THREADPOOL_MAXSIZE, ASYNCIO_EVENT_LOOP, logging), once."""
        self.loop: asyncio.AbstractEventLoop | None = None
        self._ready, self._failed = threading.Event(), None
        self.thread = threading.Thread(target=self._run, args=(settings,), name=NAME, daemon=True)
        self.thread.start()

    def wait_ready(self) -> None:
        """Returns once the reactor runs; ReactorError when it could not start, or has stopped since."""
        self._ready.wait()
        if self._failed is not None:
            raise ReactorError(f"Scrapy's reactor could not start: {self._failed}") from self._failed
        if not self.thread.is_alive():  # only a reactor.stop() from some crawl's code ends it
            raise ReactorError("Scrapy's reactor was stopped in this process, and a Twisted reactor cannot restart")

    def _run(self, settings: Settings) -> None:
        try:
            # Installs the asyncio reactor on a new event loop of this thread's (asyncio has none set here).
            process = AsyncCrawlerProcess(settings)
            from twisted.internet import reactor

            self.loop = asyncio.get_event_loop()
            reactor.callWhenRunning(self._ready.set)
            process.start(stop_after_crawl=False, install_signal_handlers=False)
        except Exception as error:  # said to the caller waiting in __init__, not lost in this thread
            self._failed = error
        finally:
            self._ready.set()

    def submit(self, coroutine: Coroutine) -> concurrent.futures.Future:
        """Run `coroutine` on the reactor's loop; its future, for any thread to wait on."""
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop)

    def call(self, function, *args) -> None:
        """Call `function(*args)` on the reactor's loop, soon."""
        self.loop.call_soon_threadsafe(function, *args)

    def here(self) -> bool:
        """Whether the caller runs on the reactor's own thread (where waiting for a crawl would wait for ever)."""
        return threading.current_thread() is self.thread


_lock = threading.Lock()
_running: ReactorThread | None = None


def running(settings: Settings) -> ReactorThread:
    """The process's reactor thread, started at the first call (with these settings); ReactorError when another
    reactor was installed in this process first."""
    global _running
    with _lock:
        if _running is None:
            usable()
            _running = ReactorThread(_quiet(settings))  # kept at once: a Ctrl-C while it starts leaves it starting
        _running.wait_ready()
        return _running


def usable() -> None:
    """ReactorError, saying what to do instead, when this process installed another reactor before the API's."""
    if _running is None and is_reactor_installed():
        raise ReactorError(_foreign())


def foreign_loop() -> asyncio.AbstractEventLoop | None:
    """The running asyncio loop when it is another's asyncio reactor's (code inside `scrapy crawl`, `scrapy serve`,
    a CrawlerProcess): a crawl can run on it directly. None otherwise."""
    if not is_reactor_installed() or (_running is not None and _running.thread.is_alive()):
        return None
    from twisted.internet import reactor

    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        return None
    return loop if getattr(reactor, "_asyncioEventloop", None) is loop else None


def _foreign() -> str:
    from twisted.internet import reactor

    kind = f"{type(reactor).__module__}.{type(reactor).__qualname__}"
    return (
        f"this process already installed a Twisted reactor ({kind}), and a process can have only one: match() "
        "runs Scrapy's asyncio reactor in a thread of its own, so call it before anything installs a reactor "
        "(importing twisted.internet.reactor does); in a coroutine on an asyncio reactor's loop (inside a Scrapy "
        "crawl), await landing.match.api.amatch() instead; or run `scrapy match` or `scrapy serve` in a process "
        "of its own"
    )


def _quiet(settings: Settings) -> Settings:
    """The process's settings without Scrapy's root log handler unless asked for: the calling program's logging is
    its own (records still reach Python's logging, warnings on stderr when it has no handler)."""
    settings = settings.copy()
    settings.set("LOG_INSTALL_ROOT_HANDLER", False, priority="default")
    return settings
