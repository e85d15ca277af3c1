"""The matcher's network questions, asked through Scrapy's engine and cached: does a DOI exist, what does a
shortDOI or a PII stand for, where does a DOI resolve to, what does a page say."""

import asyncio
import dataclasses
import hashlib
import itertools
import json
from dataclasses import replace
from urllib.parse import quote

import scrapy

from landing import config
from landing.core.matching.questions import Alias, Exists, Fetch, Pii, Question, Resolve, Titles
from landing.core.matching.results import Fetched, LookupFailed
from landing.core.pids.doi import normalise, resolver_path
from landing.crawl.failed_visits import exception_failure
from landing.crawl.responses import headers
from landing.crawl.signals import chain_ended
from landing.match.answer_cache import Answers, LocalAnswers


class NotHeld(Exception):
    """A question whose answer this process does not hold at once (Lookups.held): it is to be asked (Lookups.answer)."""


class Lookups:
    """The answers of one crawl (a run, a service), kept in `answers` (landing.match.answer_cache: an LRU of the process,
    Redis before it with LANDING_MATCH_REDIS; by default an LRU of `entries` kept `ttl_seconds`, None: for ever),
    concurrent askers of a question in flight sharing one request."""

    def __init__(
        self,
        engine,
        resolver: str,
        crossref_api: str,
        datacite_api: str,
        mailto=None,
        *,
        answers: Answers | None = None,
        entries: int = 100_000,
        ttl_seconds: float | None = None,
    ):
        self.engine, self.resolver, self.mailto = engine, resolver, mailto
        self.crossref_api, self.datacite_api = crossref_api, datacite_api
        self.answers = answers if answers is not None else LocalAnswers(entries, ttl_seconds)
        # The endpoints asked name the answers kept: a sandbox's answers never stand for the real registries'.
        self.scope = hashlib.sha256(f"{resolver} {crossref_api} {datacite_api}".encode()).hexdigest()[:16]
        self.inflight: dict = {}  # key -> the task asking it, shared by its askers
        self.askers: dict = {}  # how many are waiting for each question's answer
        self.jars = itertools.count()
        self.kept = getattr(self.answers, "held", None)  # answers held at once, read once: `held` runs per question

    @classmethod
    def of(cls, crawler, answers: Answers) -> "Lookups":
        """The crawler's lookups as its LANDING_* settings have them (endpoints), their answers kept in `answers`
        (landing.match.answer_cache.answers_of)."""
        cfg = config.of(crawler)
        return cls(crawler.engine, cfg.doi_resolver, cfg.crossref_api, cfg.datacite_api, cfg.mailto, answers=answers)

    async def _once(self, key, make, codec=None):
        """make()'s (value, requests) the first time key is asked; (value, 0) from the answers kept or from the request
        already in flight. A question every asker gave up on (an input past its deadline) is cancelled, not left to
        hold the run open. `codec`: (to JSON, from JSON) for values JSON does not keep."""
        key = (self.scope, *key)
        asked = self.inflight.get(key)
        if asked is None:
            found, data = await self.answers.get(key)
            if found:
                try:
                    return (codec[1](data) if codec else data), 0
                except (TypeError, ValueError, KeyError, IndexError):
                    pass  # another program's value under our key: asked as if missing
            asked = self.inflight.get(key)  # another asker may have started it while the answers were read
        first = asked is None
        if first:
            asked = self.inflight[key] = asyncio.ensure_future(self._asked(key, make, codec))
        self.askers[key] = self.askers.get(key, 0) + 1
        try:
            value, requests = await asyncio.shield(asked)
            return value, requests if first else 0
        except asyncio.CancelledError:
            if self.askers[key] == 1 and not asked.done() and self.inflight.get(key) is asked:
                asked.cancel()  # the last one asking gave up: nobody waits for the answer
                del self.inflight[key]
            raise
        finally:
            self.askers[key] -= 1
            if not self.askers[key]:
                del self.askers[key]

    async def _asked(self, key, make, codec):
        """make()'s answer, then kept. A failed lookup (LookupFailed) is kept nowhere: the next asker asks again."""
        task = asyncio.current_task()
        try:
            value, requests = await make()
            await self.answers.put(key, codec[0](value) if codec else value)
            return value, requests
        finally:
            if self.inflight.get(key) is task:
                del self.inflight[key]

    async def answer(self, question: Question) -> tuple:
        """The cascade's question answered: (value, requests made); LookupFailed when a registry did not answer."""
        match question:
            case Exists(doi):
                return await self.exists(doi)
            case Alias(short):
                return await self.alias(short)
            case Pii(variants):
                return await self.pii(list(variants))
            case Resolve(doi):
                return await self.resolve(doi)
            case Titles(doi):
                return await self.titles(doi)
            case Fetch(url):
                got = await self.fetch(url)
                return got, got.hops
        raise TypeError(f"not a question: {question!r}")

    def held(self, question: Question) -> tuple:
        """The cascade's question answered at once from the answers this process holds, as `answer` would answer it
        from them: (value, 0); NotHeld when one it needs is held only in Redis, or not yet, or is being asked."""
        match question:
            case Exists(doi):
                return self._held(("handle", doi.lower())) is not None, 0
            case Alias(short):
                return _alias(self._held(("handle", short.lower()))), 0
            case Pii(variants):
                for variant in variants:  # the first written form that finds any, as `pii` reads them
                    if found := self._held(("pii", variant)):
                        return found, 0
                return [], 0
            case Resolve(doi):
                return self._held(("resolve", doi.lower()), RESOLVED), 0
            case Titles(doi):
                return self._held(("titles", doi.lower()), TITLES), 0
        raise NotHeld(question)  # a page is never held: fetched each time

    def _held(self, key, codec=None):
        key = (self.scope, *key)
        held = self.kept
        found, data = held(key) if held is not None and key not in self.inflight else (False, None)
        if not found:
            raise NotHeld(key)
        try:
            return codec[1](data) if codec else data
        except (TypeError, ValueError, KeyError, IndexError):
            raise NotHeld(key) from None  # another program's value under our key: `answer` asks it again

    def cancel(self):
        """Cancel every question still in flight: a run asked to stop waits for no registry."""
        for asked in list(self.inflight.values()):
            asked.cancel()

    async def fetch(self, url: str, **meta) -> Fetched:
        """GET url, following redirects and meta refreshes with Scrapy's middlewares.

        Each fetch has its own cookie jar, dropped when it ends, as each of the sampler's DOIs has: what one
        input's chain was given never carries another past a cookie wall.
        """
        jar = f"fetch {next(self.jars)}"
        request = scrapy.Request(url, dont_filter=True, meta={"landing_chain": True, "cookiejar": jar, **meta})
        try:
            response = await self.engine.download_async(request)
        except Exception as error:  # every download failure becomes a class (robots, dns...), as in the sampler
            return Fetched(url, error=exception_failure(error, [url]))
        finally:
            self.engine.crawler.signals.send_catch_log(chain_ended, jar=jar)
        hops = len(response.meta.get("redirect_urls", [])) + 1
        return Fetched(url, response.url, response.status, headers(response), response.body, hops)

    async def handle(self, handle: str) -> tuple[dict | None, int]:
        """The Handle API's record for a handle, as much of it as is read (its HS_ALIAS values), or None when it
        is not registered; (record, requests made). Raises LookupFailed when the API's answer says neither."""

        async def ask():
            url = f"{self.resolver}/api/handles/{resolver_path(handle)}"
            got = await self.fetch(url, landing_api=True)
            payload = _json(got)
            if got.status == 200 and payload.get("responseCode") in (1, 200):  # 200: known, no values asked for
                # Only what is read is kept (and shared): a real record's admin values are most of its size.
                values = [v for v in payload.get("values") or [] if isinstance(v, dict) and v.get("type") == "HS_ALIAS"]
                return {"values": values}, got.hops
            if got.status == 404 and payload.get("responseCode") == 100:  # the Handle API's "handle not found"
                return None, got.hops
            raise LookupFailed(f"Handle API: {got.error or got.status} for {handle}")

        return await self._once(("handle", handle.lower()), ask)

    async def exists(self, doi: str) -> tuple[bool, int]:
        record, requests = await self.handle(doi)
        return record is not None, requests

    async def alias(self, short: str) -> tuple[str | None, int]:
        """The DOI a shortDOI stands for (its HS_ALIAS value), or None."""
        record, requests = await self.handle(short)
        return _alias(record), requests

    async def pii(self, variants: list[str]) -> tuple[list[str], int]:
        """DOIs whose Crossref alternative-id is one of the PII's written forms (first form that finds any)."""
        requests = 0
        for variant in variants:

            async def ask(variant=variant):
                query = f"filter=alternative-id:{quote(variant, safe='')}&select=DOI&rows=5"
                if self.mailto:
                    query += f"&mailto={quote(self.mailto)}"
                got = await self.fetch(f"{self.crossref_api}/works?{query}", landing_api=True)
                if got.status != 200:
                    raise LookupFailed(f"Crossref: {got.error or got.status} for PII {variant}")
                items = (_json(got).get("message") or {}).get("items") or []
                return sorted({normalise(i["DOI"]) for i in items if i.get("DOI")}), got.hops

            found, made = await self._once(("pii", variant), ask)
            requests += made
            if found:
                return found, requests
        return [], requests

    async def titles(self, doi: str) -> tuple[tuple[list[str], list[str]] | None, int]:
        """The DOI's registered (titles, subtitles): Crossref's record, else DataCite's; None when neither
        registered it (another agency's DOI has no title to check)."""

        async def ask():
            query = f"?mailto={quote(self.mailto)}" if self.mailto else ""
            got = await self.fetch(f"{self.crossref_api}/works/{resolver_path(doi)}{query}", landing_api=True)
            requests = got.hops
            if got.status == 200:
                work = _json(got).get("message") or {}
                return (
                    _strings(work.get("title")) + _strings(work.get("original-title")),
                    _strings(work.get("subtitle")),
                ), requests
            if got.status != 404:
                raise LookupFailed(f"Crossref: {got.error or got.status} for {doi}")
            got = await self.fetch(f"{self.datacite_api}/dois/{resolver_path(doi)}", landing_api=True)
            requests += got.hops
            if got.status == 404:
                return None, requests
            if got.status != 200:
                raise LookupFailed(f"DataCite: {got.error or got.status} for {doi}")
            entries = ((_json(got).get("data") or {}).get("attributes") or {}).get("titles") or []
            entries = [e for e in entries if isinstance(e, dict) and isinstance(e.get("title"), str)]
            return (
                [e["title"] for e in entries if e.get("titleType") != "Subtitle"],
                [e["title"] for e in entries if e.get("titleType") == "Subtitle"],
            ), requests

        return await self._once(("titles", doi.lower()), ask, TITLES)

    async def resolve(self, doi: str) -> tuple[Fetched, int]:
        """Where resolving the DOI leads: the chain followed from the resolver to its end, without the page's body
        and headers; (fetched, requests)."""

        async def ask():
            got = await self.fetch(f"{self.resolver}/{resolver_path(doi)}")
            # Cached for the run: where it led, never the page's body and headers (a body per DOI asked about).
            return replace(got, body=None, headers=None), got.hops

        return await self._once(("resolve", doi.lower()), ask, RESOLVED)


def _alias(record: dict | None) -> str | None:
    """The DOI a Handle record's first HS_ALIAS value names, or None."""
    for value in (record or {}).get("values", []):
        if value.get("type") == "HS_ALIAS":
            return normalise(value["data"]["value"])
    return None


def _json(got: Fetched) -> dict:
    """The JSON object an API answered; a body that is none means the lookup failed."""
    try:
        payload = json.loads(got.body) if got.body else {}
    except ValueError:
        payload = None
    if not isinstance(payload, dict):
        raise LookupFailed(f"not a JSON object from {got.url} ({got.status})")
    return payload


# (to JSON, from JSON) for the answers JSON does not keep as they are: registered titles, where a DOI resolves to.
TITLES = (lambda titles: titles, lambda data: None if data is None else (list(data[0]), list(data[1])))
RESOLVED = (
    lambda fetched: dataclasses.asdict(fetched),
    lambda data: Fetched(**{**data, "body": None, "headers": None}),
)


def _strings(value) -> list[str]:
    """A Crossref field's strings (a list of them, as the API writes titles), anything else dropped."""
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []
