"""The matching service over HTTP: an aiohttp application on the crawl's own asyncio loop (docs/service.md).

aiohttp runs on the loop Scrapy's AsyncioSelectorReactor runs, so a page an input needs is the engine's request,
with every middleware, robots and politeness, and an answer crosses no thread. GET /match, the hot path, is answered
before aiohttp's routing and response machinery (landing.serve.fast_path), with the same limits and answers.
"""

import asyncio
import contextlib
import json
import time
from collections import Counter
from functools import partial

from aiohttp import web
from aiohttp.web_protocol import RequestPayloadError
from yarl import URL

from landing.core.matching.cascade import FETCHES
from landing.core.matching.events import event_line, unshaped
from landing.core.matching.input_lines import BOM, dumps
from landing.match.answering import MatcherClosed
from landing.serve.admission import (
    Admission,
    client_connections,
    connection_cap,
    file_limit,
    quiet_accept_errors,
)
from landing.serve.fast_path import FIELD_LIMIT, HEADERS_LIMIT, LINE_LIMIT, FastConnection
from landing.serve.metrics import ServiceMetrics, health, route_of
from landing.serve.openapi import document
from landing.serve.post_match import post_match
from landing.serve.refusals import (
    REFUSED,
    RefusalLog,
    body_refusal,
    error,
    error_message,
    fault,
    log_refusal,
    unknown_fetch,
)

# The status a request is counted under when its client went away before its answer (nginx's "client closed request").
GONE = 499
# Past a drain, connections still open get this long to take their answers before they are closed.
LAST_WORDS = 1.0
# Results' JSON kept by the result object answered (the result cache hands out the object it holds): an input asked
# again costs no encoding. Emptied when full: of entries, or of bytes (inputs may be long, and so their JSON).
ENCODED, ENCODED_BYTES = 10_000, 32 * 1024 * 1024


def _dumps(value) -> str:
    return json.dumps(value, ensure_ascii=False)  # the OpenAPI document, written once at start


def _error_body(status: int, message: str) -> bytes:
    return dumps({"error": message, "status": status})


def _query(target: bytes):
    """A GET request target's query, as aiohttp's parser reads one (aiohttp/_http_parser.pyx)."""
    text = target.decode("utf-8", "surrogateescape").partition("#")[0]
    return URL.build(path="/match", query_string=text.partition("?")[2], encoded=True).query


def _asked(query) -> tuple:
    """A GET /match query's q, fetch, format and citing page (subj); None where not given, format flat."""
    q = query.get("q")  # percent-escapes read as UTF-8, bad bytes as U+FFFD (yarl): text_of's reading, and its BOM
    return q if q is None else q.removeprefix(BOM), query.get("fetch"), query.get("format", "flat"), query.get("subj")


class Service:
    """The routes (GET and POST /match, /healthz, /metrics, /openapi.json) around one Matcher, with the limits of a
    Config's serve_* fields; `start` listens (503 until `ready` gives the Matcher), `drain` stops listening and lets
    requests in flight finish."""

    def __init__(self, holder, cfg, logger):
        self.matcher, self.holder, self.cfg, self.logger = None, holder, cfg, logger
        self.streams = None  # the StreamService beside it, if any (landing.commands.serve)
        self.draining = False
        self.clients: Counter = Counter()  # peer address -> its /match requests in flight
        self.in_flight = 0
        self.connections: set = set()  # the connections landing.serve.fast_path answers
        self.encoded: dict = {}  # id(result) -> (result, its JSON): see ENCODED
        self.encoded_bytes = 0
        self.server: asyncio.Server | None = None
        self.idle_seconds = cfg.serve_idle_seconds  # how long a connection may stay open with no request under way
        # The connection caps and the head's and body's times (landing.serve.admission).
        self.door = Admission(
            cfg.serve_connections,
            client_connections(cfg.serve_client_connections, cfg.serve_client_concurrency),
            logger,
            head=cfg.serve_head_seconds,
            body=cfg.serve_body_seconds,
        )
        self.idle = asyncio.Event()
        self.idle.set()
        self.metrics = ServiceMetrics(self, holder)
        self.openapi = _dumps(
            document("1", cfg.match_fetch, cfg.serve_max_body, cfg.serve_max_input, cfg.serve_client_concurrency)
        ).encode()
        # aiohttp's own body limit is the service's (POST bodies are read by the handler, which applies it too).
        self.app = web.Application(middlewares=[self._around], client_max_size=cfg.serve_max_body)
        self.app.router.add_get("/match", self.get_match)
        self.app.router.add_post("/match", partial(post_match, self))
        self.app.router.add_get("/healthz", self.healthz)
        self.app.router.add_get("/metrics", self.prometheus)
        self.app.router.add_get("/openapi.json", self.openapi_json)
        self.runner: web.AppRunner | None = None

    def ready(self, matcher) -> None:
        """Answer with `matcher` from now on."""
        self.matcher = matcher

    async def start(self, address: str, port: int) -> tuple[str, int]:
        """Listen; (address, port) listened on (port 0: the free one chosen). OSError when it cannot."""
        # No access log: a line per request at thousands a second; the counts are in /metrics. Its refusals and faults
        # one log line each (landing.serve.refusals), never a traceback. aiohttp's connections: idle as long as the
        # fast path's, heads bounded as the fast path bounds them, and a body not read (refused, stalled) drained no
        # longer than a body may stall. handler_cancellation: a client gone cancels its request's handler, and so the
        # inputs it was answering.
        bounds = {"max_line_size": LINE_LIMIT, "max_field_size": FIELD_LIMIT, "max_headers": HEADERS_LIMIT}
        self.runner = web.AppRunner(
            self.app,
            access_log=None,
            shutdown_timeout=LAST_WORDS,
            keepalive_timeout=self.idle_seconds,
            lingering_time=self.door.body,
            logger=RefusalLog(self.logger),
            handler_cancellation=True,
            **bounds,
        )
        await self.runner.setup()
        loop = asyncio.get_running_loop()
        self.door.cap = connection_cap(self.door.cap, file_limit())
        quiet_accept_errors(loop, self.logger)
        # Every connection starts on the fast path, which hands it to aiohttp's RequestHandler (runner.server()) at
        # the first request that is not a plain GET /match.
        connections, handover, idle, door = self.connections, self.runner.server, self.idle_seconds, self.door
        try:
            self.server = await loop.create_server(
                lambda: FastConnection(self.fast_match, handover, connections, idle, door, self.fast_match_now),
                address,
                port,
                backlog=128,
            )
        except OSError:
            await self.runner.cleanup()
            raise
        host, bound = self.server.sockets[0].getsockname()[:2]
        return host, bound

    async def drain(self, seconds: float) -> bool:
        """Stop accepting connections, answer 503 to new requests on open ones, wait up to `seconds` for those in
        flight, then close; True when every request in flight finished."""
        self.draining = True
        if self.runner is None:
            return True
        if self.server is not None:
            self.server.close()  # closes the listening socket: new connections are refused
        try:
            await asyncio.wait_for(self.idle.wait(), seconds)
            finished = True
        except TimeoutError:
            finished = False
            self.logger.warning("%d request(s) still in flight after %g s: ending them", self.in_flight, seconds)
            if self.matcher is not None:
                self.matcher.stop()  # their inputs end as 503s, which their clients get, rather than a cut connection
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.idle.wait(), LAST_WORDS)
        for connection in list(self.connections):
            connection.close()
        self.door.close()
        await self.runner.cleanup()  # closes the connections handed to aiohttp
        return finished

    def _refused(self, route: str, peer: str) -> tuple[int, str] | None:
        """(status, why) when a request on `route` from `peer` is not to be answered now."""
        if self.draining and route != "/healthz":
            return 503, "the service is stopping"
        if self.matcher is None and route == "/match":
            return 503, "the service is starting"
        # Health checks and scrapes are never refused for a busy client.
        if route == "/match" and self.clients[peer] >= self.cfg.serve_client_concurrency:
            return 429, (
                f"{self.cfg.serve_client_concurrency} requests of this client are in flight already "
                "(LANDING_SERVE_CLIENT_CONCURRENCY): wait for an answer first"
            )
        return None

    def _enter(self) -> None:
        self.in_flight += 1
        self.idle.clear()

    def _leave(self, route: str, method: str, status: int, started: float) -> None:
        self.in_flight -= 1
        if not self.in_flight:
            self.idle.set()
        self.metrics.observe(route, method, status, time.perf_counter() - started)

    @web.middleware
    async def _around(self, request, handler):
        started, route = time.perf_counter(), route_of(request.path)
        self._enter()
        peer = request.remote or ""
        status = 500
        try:
            refused = self._refused(route, peer)
            if refused is not None:
                response = error(*refused)
            else:
                response = await self._counted(request, handler, peer if route == "/match" else None)
            status = response.status
            if status in REFUSED:
                log_refusal(self.logger, f"{request.method} {request.path}", peer, status, error_message(response.body))
            return response
        except asyncio.CancelledError:
            status = GONE
            raise
        finally:
            self._leave(route, request.method, status, started)

    def fast_match_now(self, target: bytes, peer: str) -> tuple[int, bytes] | None:
        """fast_match's answer with no turn of the event loop, when the input needs none (Matcher.match_now); None
        when it does, or when the request is one to refuse: fast_match answers it then, without trying this again."""
        started = time.perf_counter()
        if self._refused("/match", peer) is not None:
            return None
        try:
            q, asked, form, subj = _asked(_query(target))
            fetch = self._fetch(asked)
            if q is None or not q.strip() or fetch is None or unshaped(form, subj) is not None:
                return None
            if len(q) > self.cfg.serve_max_input:
                return None
            result = self.matcher.match_now(q, fetch)
            if result is None:
                return None
            found = 200, self._encoded(result, form, subj)
        except Exception as failed:  # as fast_match says it
            self.logger.error("GET /match failed: %s", fault(failed))
            found = 500, _error_body(500, f"the service failed: {type(failed).__name__}")
        # Counted as _enter and _leave count a request, less what nobody can see between them with no turn of the loop.
        self.metrics.observe("/match", "GET", found[0], time.perf_counter() - started)
        return found

    async def fast_match(self, target: bytes, peer: str, tried: bool = True) -> tuple[int, bytes]:
        """(status, JSON body) of a GET /match whose request target is `target` (landing.serve.fast_path), with every
        limit, count and error of the aiohttp route; `tried`: fast_match_now found it needs the loop."""
        started = time.perf_counter()
        self._enter()
        status = 500
        try:
            refused = self._refused("/match", peer)
            if refused is not None:
                status, body = refused[0], _error_body(*refused)
                return status, body
            self.clients[peer] += 1
            try:
                status, body = await self._answer(*_asked(_query(target)), peer, at_once=not tried)
                if status in REFUSED:
                    log_refusal(self.logger, "GET /match", peer, status, error_message(body))
            except asyncio.CancelledError:
                status = GONE
                raise
            except Exception as failed:  # as _counted says it
                self.logger.error("GET /match failed: %s", fault(failed))
                status = 500
                body = _error_body(500, f"the service failed: {type(failed).__name__}")
            finally:
                self.clients[peer] -= 1
                if not self.clients[peer]:
                    del self.clients[peer]
            return status, body
        finally:
            self._leave("/match", "GET", status, started)

    async def _counted(self, request, handler, peer):
        if peer is not None:
            self.clients[peer] += 1
        try:
            return await handler(request)
        except RequestPayloadError as unreadable:  # a body aiohttp's parser refuses: a bad chunk, a bad gzip stream
            return error(400, f"the body cannot be read: {body_refusal(unreadable)}")
        except ConnectionError:  # the client went away while its request was read: nobody to answer, one line said
            return error(400, "the client went away before its request was read")
        except web.HTTPException as refused:  # aiohttp's own: 404, 405 (with Allow), 413
            response = error(refused.status, refused.reason)
            if "Allow" in refused.headers:
                response.headers["Allow"] = refused.headers["Allow"]
            return response
        except Exception as failed:  # a fault of the service's, said in JSON like any error, and in one log line
            self.logger.error("%s %s failed: %s", request.method, request.path, fault(failed))
            return error(500, f"the service failed: {type(failed).__name__}")
        finally:
            if peer is not None:
                self.clients[peer] -= 1
                if not self.clients[peer]:
                    del self.clients[peer]

    def _fetch(self, asked: str | None) -> str | None:
        """The fetch policy of `fetch=asked` (None: not given, the settings' as `scrapy match`'s); None if unknown."""
        fetch = self.cfg.match_fetch if asked is None else asked
        return fetch if fetch in FETCHES else None

    async def get_match(self, request):
        status, body = await self._answer(*_asked(request.query), request.remote or "")
        return web.Response(body=body, status=status, content_type="application/json", charset="utf-8")

    async def _answer(
        self, q: str | None, asked: str | None, form="flat", subj=None, peer="", at_once=True
    ) -> tuple[int, bytes]:
        """(status, JSON body) of GET /match?q=q&fetch=asked&format=form&subj=subj (None: not given) from `peer`;
        `at_once`: whether the match may be tried with no turn of the loop (False: it was)."""
        fetch = self._fetch(asked)
        if q is None or not q.strip():
            return 400, _error_body(400, "give q: a URL, a DOI or free text (GET /match?q=...)")
        if fetch is None:
            return 400, _error_body(400, unknown_fetch(asked))
        refused = unshaped(form, subj)
        if refused is not None:
            return 400, _error_body(400, refused)
        if len(q) > self.cfg.serve_max_input:
            why = f"q holds {len(q):,} characters, over {self.cfg.serve_max_input:,} (LANDING_SERVE_MAX_INPUT)"
            return 413, _error_body(413, why)
        try:
            result = await self.matcher.match(q, fetch, peer, at_once=at_once)
        except MatcherClosed:
            return 503, _error_body(503, "the service is stopping")
        return 200, self._encoded(result, form, subj)

    def _encoded(self, result: dict, form: str, subj: str | None) -> bytes:
        """A result's JSON in `form`: a flat result asked again is not encoded again."""
        if form == "event":  # built anew: the encoded results are the flat ones
            return dumps(event_line(result, subj))
        held = self.encoded.get(id(result))
        if held is not None and held[0] is result:
            return held[1]
        body = dumps(result)
        if len(self.encoded) >= ENCODED or self.encoded_bytes + len(body) > ENCODED_BYTES:
            self.encoded.clear()
            self.encoded_bytes = 0
        self.encoded[id(result)] = (result, body)
        self.encoded_bytes += len(body)
        return body

    async def healthz(self, request):
        stats = self.matcher.stats() if self.matcher is not None else {"inputs": 0, "in_flight": 0}
        state = "draining" if self.draining else "starting" if self.matcher is None else "ok"
        body = health(state, stats, self.holder, self.cfg.serve_slot_wait_seconds)
        return web.json_response(body, status=200 if body["status"] == "ok" else 503)

    async def prometheus(self, request):
        return web.Response(
            body=self.metrics.text(), headers={"Content-Type": "text/plain; version=0.0.4; charset=utf-8"}
        )

    async def openapi_json(self, request):
        return web.Response(body=self.openapi, content_type="application/json")
