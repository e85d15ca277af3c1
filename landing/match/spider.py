"""matcher: turn URLs seen on the web into DOIs, cheapest method first, saying how each match was verified.

The decisions are landing.core.matching, .decisions and .urls; this spider only asks the network
(landing.match.lookups) what those decisions need, and records every attempt as evidence.
"""

import asyncio
from contextvars import ContextVar
from urllib.parse import urlsplit

import scrapy

from landing.config import number
from landing.core import matching
from landing.core.analysis import read_page
from landing.core.decisions import Decisions, domain_verification, prefixes_on
from landing.core.doi import find_dois, prefix
from landing.core.failures import page_failure
from landing.core.titles import distinctive
from landing.core.titles import same_work as titles_match
from landing.core.urls import domain, same_basic, same_exact, subject_url
from landing.crawl.endpoints import endpoint, resolver_hosts
from landing.match.lookups import LookupFailed, Lookups

INPUTS = "matcher-inputs"


class OverBudget(Exception):
    """The input made LANDING_MATCH_REQUESTS requests: it asks no more questions."""


class _Budget:
    """Requests one input has made, against its cap; each input's work task holds its own (a context variable)."""

    def __init__(self, cap: int):
        self.cap, self.spent = cap, 0

    def check(self):
        if self.spent >= self.cap:
            raise OverBudget(f"{self.spent} requests made, the most one input may make (LANDING_MATCH_REQUESTS)")


_BUDGET: ContextVar[_Budget] = ContextVar("budget")


def _short(text: str) -> str:
    """An input as a log line names it: a megabyte of junk is not repeated in the log."""
    return text if len(text) <= 200 else f"{text[:200]}... ({len(text):,} characters)"


class MatcherSpider(scrapy.Spider):
    name = "matcher"
    # The sampler's pipelines and progress lines are not the matcher's; its output is the JSON it prints.
    custom_settings = {"ITEM_PIPELINES": {}, "LANDING_PROGRESS_INTERVAL": 0, "LOG_LEVEL": "WARNING"}

    @classmethod
    def update_settings(cls, settings):
        super().update_settings(settings)
        # Inputs enter through their own download slot, beside the crawl's: AutoThrottle's start delay must not
        # pace them. At the spider's priority at least, as custom_settings would set it: at the project's, the
        # inputs went unslotted (`scrapy match --evaluate` on the demo's store: 0.8 inputs/s against 17).
        slots = {**settings.getdict("DOWNLOAD_SLOTS"), INPUTS: {"concurrency": 64, "delay": 0}}
        settings.set("DOWNLOAD_SLOTS", slots, priority=max(settings.getpriority("DOWNLOAD_SLOTS"), 30))

    def __init__(self, inputs=(), decisions=None, fetch=True, **kwargs):
        super().__init__(**kwargs)
        self.inputs, self.decisions, self.fetch = list(inputs), decisions or Decisions(), fetch
        self.stopping, self.inflight = False, set()

    @classmethod
    def from_crawler(cls, crawler, *args, **kwargs):
        spider = super().from_crawler(crawler, *args, **kwargs)
        s = crawler.settings
        spider.lookups = None
        spider.endpoints = (
            endpoint(s, "LANDING_DOI_RESOLVER"),
            endpoint(s, "LANDING_CROSSREF_API"),
            endpoint(s, "LANDING_DATACITE_API"),
            s.get("LANDING_MAILTO"),
        )
        spider.text_cap = number(s, "LANDING_MATCH_TEXT_CANDIDATES")
        spider.piece_cap, spider.candidate_cap = (
            number(s, "LANDING_MATCH_PIECES"),
            number(s, "LANDING_MATCH_CANDIDATES"),
        )
        spider.request_cap, spider.evidence_cap = (
            number(s, "LANDING_MATCH_REQUESTS"),
            number(s, "LANDING_MATCH_EVIDENCE"),
        )
        spider.deadline = number(s, "LANDING_MATCH_DEADLINE")
        spider.resolver_hosts = resolver_hosts(s)
        return spider

    async def start(self):
        self.lookups = Lookups(self.crawler.engine, *self.endpoints)
        self.running = asyncio.Semaphore(self.crawler.settings.getint("LANDING_MATCH_CONCURRENCY"))
        for index, text in enumerate(self.inputs):
            if self.stopping:
                return
            # A data: URL costs no network: it only hands each input to a callback inside the engine.
            yield scrapy.Request(
                f"data:,{index}",
                callback=self.match,
                dont_filter=True,
                meta={"input": text, "number": index, "download_slot": INPUTS},
            )

    def stop_matching(self):
        """Stop at once, as a first SIGTERM or Ctrl-C asks: no input starts, those in progress are dropped (they
        print no line), and every network question in flight is cancelled rather than waited for."""
        self.stopping = True
        for work in list(self.inflight):
            work.cancel()
        if self.lookups is not None:
            self.lookups.cancel()

    async def match(self, response):
        text, evidence = response.meta["input"].strip(), []
        if self.stopping:
            return
        async with self.running:  # bounds what is held at once (page bodies awaiting their checks)
            found = None if self.stopping else await self._bounded(text, evidence)
        if found is None:
            return
        if found["doi"]:  # the artifact a match was decided with, as the seeds link evidence to artifacts
            found["evidence"].append(matching.attempt("artifact", None, self.decisions.version or "none", 0))
        found["evidence"] = matching.capped(found["evidence"], self.evidence_cap)
        if "matches" in found:
            found["matches"] = [
                {**m, "evidence": matching.capped(m["evidence"], self.evidence_cap)} for m in found["matches"]
            ]
        yield {"number": response.meta["number"], **found, "input": text}  # as given, not as repaired

    async def _bounded(self, text, evidence):
        """The input's result within its deadline and its requests; None when the run was stopped first."""
        work = asyncio.ensure_future(self._budgeted(text, evidence))
        self.inflight.add(work)
        try:
            return await asyncio.wait_for(work, self.deadline or None)
        except TimeoutError:
            evidence.append(matching.attempt("deadline", None, f"no answer within {self.deadline:g} s", 0))
        except asyncio.CancelledError:
            if self.stopping and not asyncio.current_task().cancelling():
                return None
            raise
        except OverBudget as error:
            evidence.append(matching.attempt("request-cap", None, str(error), 0))
        except LookupFailed as error:  # a registry that did not answer is no "not found": say which it was
            self.logger.warning("matching %r: %s", _short(text), error)
            evidence.append(matching.attempt("lookup-failed", None, str(error), 0))
        except Exception as error:  # one odd input must cost its own answer, never the others' or a silent gap
            # The user's terminal gets one line; the traceback is for whoever runs with -L DEBUG.
            self.logger.error("matching %r failed: %s: %s", _short(text), type(error).__name__, error)
            self.logger.debug("matching %r failed", _short(text), exc_info=True)
            evidence.append(matching.attempt("error", None, f"{type(error).__name__}: {error}", 0))
        finally:
            self.inflight.discard(work)
        return matching.result(text, None, None, None, None, None, evidence)

    async def _budgeted(self, text, evidence):
        _BUDGET.set(_Budget(self.request_cap))  # this input's own task: its context is its own
        return await self._match(text, evidence)

    async def _ask(self, question, *args):
        """question(*args)'s (answer, requests), counted against the input's requests; OverBudget once they are made."""
        budget = _BUDGET.get()
        budget.check()
        answer, requests = await question(*args)
        budget.spent += requests
        return answer, requests

    async def _match(self, text, evidence):
        text = matching.cleaned(text)
        found = matching.pieces(text, self.piece_cap + 1)  # one more than is matched: whether there were more
        if found:
            return await self._free_text(text, found, evidence)
        return await self._one(text, evidence)

    async def _free_text(self, text, found, evidence):
        """Free text: each URL and DOI in it matched on its own, the first LANDING_MATCH_PIECES of them; the first
        match leads, all are listed."""
        matches, more = [], len(found) > self.piece_cap
        for piece in found[: self.piece_cap]:
            try:
                result = await self._one(piece, [])
            except OverBudget as error:  # the matches found so far stand; the rest of the text is not read
                evidence.append(matching.attempt("request-cap", None, str(error), 0))
                break
            evidence.extend(result["evidence"])
            if result["doi"]:
                matches.append(result)
        if more:
            evidence.append(matching.attempt("pieces-cap", None, f"only the first {self.piece_cap} matched", 0))
        lead = matches[0] if matches else matching.result(text, None, None, None, None, None, [])
        return {**lead, "input": text, "evidence": evidence, "matches": matches}

    async def _one(self, text, evidence):
        url = matching.as_url(text)
        if url is not None and (why := matching.malformed(url)):
            # No page to fetch and no domain to vouch, at once: a DOI inside a URL is no literal DOI.
            evidence.append(matching.attempt("malformed-url", url, why, 0))
            return matching.result(text, None, None, None, None, None, evidence)
        literal = matching.literal(text)
        if literal and (found := await self._literal(text, literal, evidence)):
            return found
        if url is None or self._on_resolver(url):
            # A DOI with junk after it, in a sentence or a reference, or on the resolver: cut as a URL is.
            tried = literal[1] if literal else None
            for candidate in matching.url_candidates(text, self.candidate_cap):
                if candidate == tried:
                    continue
                exists, requests = await self._ask(self.lookups.exists, candidate)
                evidence.append(
                    matching.attempt("doi-literal", candidate, "exists" if exists else "not-found", requests)
                )
                if exists:
                    return matching.result(text, candidate, "doi-literal", "literal", None, None, evidence)
        pii = matching.pii(text)
        if pii:
            dois, requests = await self._ask(self.lookups.pii, matching.pii_variants(pii))
            evidence.append(matching.attempt("pii", pii, f"found {len(dois)}", requests))
            if len(dois) == 1:  # a PII shared by several DOIs says nothing trustworthy
                return matching.result(text, dois[0], "pii", "lookup", None, None, evidence)
        if url is None or self._on_resolver(url):
            return matching.result(text, None, None, None, None, None, evidence)
        found = await self._url(url, evidence)
        if found:
            return found
        if not self.fetch:
            return matching.result(text, None, None, None, None, None, evidence)
        return await self._page(url, evidence)

    def _on_resolver(self, url):
        return urlsplit(url).hostname in self.resolver_hosts

    async def _literal(self, text, literal, evidence):
        """The input as one DOI or shortDOI, when the registry knows it; else None."""
        kind, value = literal
        if kind == "short":
            doi, requests = await self._ask(self.lookups.alias, value)
            evidence.append(matching.attempt("doi-literal", value, "alias" if doi else "unknown-short-doi", requests))
        else:
            exists, requests = await self._ask(self.lookups.exists, value)
            doi = value if exists else None
            evidence.append(matching.attempt("doi-literal", value, "exists" if exists else "not-found", requests))
        return matching.result(text, doi, "doi-literal", "literal", None, None, evidence) if doi else None

    async def _url(self, text, evidence):
        """landing-page-url: the first candidate DOI in the URL that exists, verified or no match."""
        for candidate in matching.url_candidates(text, self.candidate_cap):
            exists, requests = await self._ask(self.lookups.exists, candidate)
            if not exists:
                evidence.append(matching.attempt("landing-page-url", candidate, "not-found", requests))
                continue
            verification = None
            if self.fetch:
                verification, elsewhere = await self._checked(candidate, [text], evidence, "landing-page-url")
                if elsewhere and not verification and matching.names_below(candidate, text):
                    # The site puts the DOI's own page elsewhere, and the URL names something inside it (a book's
                    # chapter): the domain's record cannot vouch for the container's DOI. Read the page.
                    evidence.append(matching.attempt("landing-page-url", candidate, "names-below-the-doi", 0))
                    return None
            verification = verification or domain_verification(
                self.decisions, domain(text), prefix(candidate), allow_domain_only=True
            )
            evidence.append(matching.attempt("landing-page-url", candidate, verification or "unverified", 0))
            if verification:  # the page itself was not fetched: its subject is the input, tracking removed
                return matching.result(
                    text, candidate, "landing-page-url", verification, None, subject_url(text, text, []), evidence
                )
            return None  # the URL's own DOI exists but nothing vouches for it here: read the page instead
        return None

    async def _checked(self, doi, urls, evidence, step):
        """(checked-url-exact / -basic or None, whether resolving the DOI reached another page of urls' hosts)."""
        resolved, requests = await self._ask(self.lookups.resolve, doi)
        outcome, elsewhere = None, False
        final = resolved.final_url
        if final and not resolved.error:
            if any(same_exact(final, u) for u in urls):
                outcome = "checked-url-exact"
            elif any(same_basic(final, u) for u in urls):
                outcome = "checked-url-basic"
            else:
                elsewhere = 200 <= (resolved.status or 0) < 300 and domain(final) in {domain(u) for u in urls}
        evidence.append(matching.attempt(step, doi, f"resolves to {final or resolved.error}", requests))
        return outcome, elsewhere

    async def _titled(self, doi, titles, evidence, step):
        """registered-title when the page states the DOI's registered title (`titles`: the page's distinctive ones,
        the only ones that can match), else None (a registry that did not answer included: it costs this check, not
        the input's other chances)."""
        if not titles:  # no title of the page could match: spare the registry
            return None
        try:
            registered, requests = await self._ask(self.lookups.titles, doi)
        except LookupFailed as error:
            evidence.append(matching.attempt(step, doi, f"title lookup failed: {error}", 0))
            return None
        if registered is None:
            evidence.append(matching.attempt(step, doi, "no registered title", requests))
            return None
        same = titles_match(*registered, titles)
        evidence.append(matching.attempt(step, doi, "title matches" if same else "title differs", requests))
        return "registered-title" if same else None

    async def _page(self, text, evidence):
        """landing-page-meta-tag, then landing-page-page-text, on the fetched page."""
        if len(text) > matching.MAX_URL_LENGTH:  # no server takes it: not asked
            evidence.append(matching.attempt("fetch", text, "url-too-long", 0))
            return matching.result(text, None, None, None, None, None, evidence)
        _BUDGET.get().check()
        page = await self.lookups.fetch(text)
        _BUDGET.get().spent += page.hops
        failure = page.error or page_failure(
            page.status, (page.headers or {}).get("content-type"), page.headers or {}, page.body or b""
        )
        evidence.append(matching.attempt("fetch", text, failure or f"{page.status} {page.final_url}", page.hops))
        if failure:
            return matching.result(text, None, None, None, page.final_url, None, evidence)
        read = read_page(page.body, page.headers.get("content-type"))
        subj = subject_url(text, page.final_url, read["canonicals"])
        # The page's one canonical link is its own word for its URL: a DOI resolving there, or stated in it, is
        # the page's (a legacy URL served without a redirect, a full text whose canonical is its abstract).
        here, urls = domain(page.final_url), list(dict.fromkeys([text, page.final_url, subj]))
        titles = [title for title in read["titles"] if distinctive(title)]  # judged once, for every candidate
        for doi in matching.rank_meta_dois(read["meta-tags"]):
            exists, requests = await self._ask(self.lookups.exists, doi)
            if not exists:  # a DOI the registry does not know is never the answer, whatever the domain's record
                evidence.append(matching.attempt("landing-page-meta-tag", doi, "not-found", requests))
                continue
            verification, elsewhere = await self._checked(doi, urls, evidence, "landing-page-meta-tag")
            if not verification and any(matching.url_states(doi, u) for u in urls):
                verification = "stated-in-url"  # the page states it twice: in its meta tag and in its URL
            if not verification and not elsewhere:  # the site itself putting the DOI elsewhere outweighs its record
                verification = domain_verification(self.decisions, here, prefix(doi), allow_domain_only=False)
            verification = verification or await self._titled(doi, titles, evidence, "landing-page-meta-tag")
            if not verification and elsewhere:  # a page naming another work of its site's prefix
                evidence.append(matching.attempt("landing-page-meta-tag", doi, "another-page-of-this-site", 0))
                continue
            evidence.append(matching.attempt("landing-page-meta-tag", doi, verification or "unverified", 0))
            if verification:
                return matching.result(text, doi, "landing-page-meta-tag", verification, page.final_url, subj, evidence)
        known = prefixes_on(self.decisions, here)
        for doi in matching.rank_text_dois(find_dois(read["text"]), known, self.text_cap):
            verification, _ = await self._checked(doi, urls, evidence, "landing-page-page-text")
            verification = verification or await self._titled(doi, titles, evidence, "landing-page-page-text")
            if verification:  # no domain fallback: reference lists are full of other works' DOIs
                return matching.result(
                    text, doi, "landing-page-page-text", verification, page.final_url, subj, evidence
                )
        return matching.result(text, None, None, None, page.final_url, subj, evidence)
