"""The matching cascade: one input to a Result, cheapest method first, as pure code that asks questions.

`Matching(text, setup).steps()` is a generator: it yields the network questions it needs answered (`Exists`,
`Alias`, `Pii`, `Resolve`, `Titles`, `Fetch`), is sent each answer as `(value, requests made)`, has a registry's
failure thrown in as `LookupFailed`, and returns the `Result`. The matcher spider answers with Scrapy requests,
tests from a dict (`drive`); whatever drives it, the decisions and the evidence are the same.
"""

from collections.abc import Callable, Generator
from dataclasses import dataclass, replace
from urllib.parse import urlsplit

from landing.core.matching.decisions import Decisions, domain_verification, prefixes_on
from landing.core.matching.questions import Alias, Exists, Fetch, Pii, Question, Resolve, Titles
from landing.core.matching.readings import (
    MAX_URL_LENGTH,
    as_url,
    attempt,
    capped,
    cleaned,
    literal,
    malformed,
    names_below,
    pieces,
    pii,
    pii_variants,
    rank_meta_dois,
    rank_text_dois,
    stronger,
    url_candidates,
    url_states,
)
from landing.core.matching.results import LookupFailed, Result
from landing.core.matching.urls import domain, one_canonical, same_basic, subject_url
from landing.core.pages.analysis import read_page
from landing.core.pages.titles import distinctive, same_work, words
from landing.core.pids.doi import find_dois, prefix
from landing.core.web.failures import page_failure

Steps = Generator[Question, tuple, Result]


# How much an input may be fetched, as `scrapy match`, the API, the service and a stream entry ask: none (the string
# alone: no page fetched, no DOI resolved), known (URLs on a domain the artifact lists, as the Percolator fetches) or
# all. The last two are the policies of LANDING_MATCH_FETCH and Setup.fetch_policy: which URLs are fetched.
FETCHES = ("none", "known", "all")
FETCH_POLICIES = FETCHES[1:]
NOT_FETCHED = "not-fetched: domain not in the artifact"


class OverBudget(Exception):
    """The input made LANDING_MATCH_REQUESTS requests: it asks no more questions."""


@dataclass(frozen=True)
class Setup:
    """What every input of a run is matched with: the artifact's decisions, the resolver's hosts, whether pages
    may be fetched (and which URLs: FETCH_POLICIES), and the LANDING_MATCH_* caps on one input's pieces,
    candidates, requests and evidence."""

    decisions: Decisions
    resolver_hosts: frozenset[str]
    fetch: bool
    pieces: int
    candidates: int
    text_candidates: int
    requests: int
    evidence: int
    fetch_policy: str = "known"

    def __post_init__(self):
        if self.fetch_policy not in FETCH_POLICIES:
            raise ValueError(f"fetch_policy={self.fetch_policy!r}: use {' or '.join(FETCH_POLICIES)}")


def fetching(setup: Setup, fetch: str) -> Setup:
    """The setup an input asking for `fetch` (one of FETCHES) is matched with.

    >>> setup = Setup(Decisions(), frozenset(), True, 1, 1, 1, 1, 1, fetch_policy="all")
    >>> [(s.fetch, s.fetch_policy) for s in (fetching(setup, f) for f in FETCHES)]
    [(False, 'known'), (True, 'known'), (True, 'all')]
    >>> fetching(setup, "some")
    Traceback (most recent call last):
    ValueError: fetch='some': use none, known, all
    """
    if fetch not in FETCHES:
        raise ValueError(f"fetch={fetch!r}: use {', '.join(FETCHES)}")
    return replace(setup, fetch=fetch != "none", fetch_policy="known" if fetch == "none" else fetch)


class Matching:
    """One input's cascade. `evidence` holds its attempts so far, for a driver that stops it (`stopped`)."""

    def __init__(self, text: str, setup: Setup):
        self.text, self.setup = text.strip(), setup  # the output names the input as given, not as repaired
        self.evidence: list[dict] = []
        self.spent = 0  # requests made, against setup.requests

    def steps(self) -> Steps:
        """The questions, then the Result (returned, as a generator returns)."""
        try:
            found = yield from self._match(self.evidence)
        except OverBudget as error:
            return self.stopped("request-cap", str(error))
        return self._finished(found)

    def stopped(self, step: str, why: str) -> Result:
        """No match, with the attempts so far and why it stopped (`deadline`, `lookup-failed`, `error`...)."""
        self.evidence.append(attempt(step, None, why, 0))
        return self._finished(Result(self.text, evidence=tuple(self.evidence)))

    def _finished(self, found: Result) -> Result:
        """The result with the artifact a match was decided with, and its evidence capped."""
        evidence = list(found.evidence)
        if found.doi:  # the artifact a match was decided with, as the seeds link evidence to artifacts
            evidence.append(attempt("artifact", None, self.setup.decisions.version or "none", 0))
        cap = self.setup.evidence
        matches = found.matches
        if matches is not None:
            matches = tuple(replace(m, evidence=tuple(capped(list(m.evidence), cap))) for m in matches)
        # Built field by field: dataclasses.replace reads the class's fields anew for every input.
        kept = tuple(capped(evidence, cap))
        doi, method, verification, checks, url = found.doi, found.method, found.verification, found.checks, found.url
        return Result(self.text, doi, method, verification, checks, url, found.subj_id, kept, matches)

    def _ask(self, question: Question):
        """question's (answer, requests), counted against the input's requests; OverBudget once they are made."""
        if self.spent >= self.setup.requests:
            raise OverBudget(f"{self.spent} requests made, the most one input may make (LANDING_MATCH_REQUESTS)")
        answer, requests = yield question
        self.spent += requests
        return answer, requests

    def _match(self, evidence: list[dict]):
        text = cleaned(self.text)
        found = pieces(text, self.setup.pieces + 1)  # one more than is matched: whether there were more
        if found:
            return (yield from self._free_text(text, found, evidence))
        return (yield from self._one(text, evidence))

    def _free_text(self, text: str, found: list[str], evidence: list[dict]):
        """Free text: each URL and DOI in it matched on its own, the first tuning.MATCH_PIECES of them; the first
        match leads, all are listed."""
        cap = self.setup.pieces
        matches, more = [], len(found) > cap
        for piece in found[:cap]:
            try:
                result = yield from self._one(piece, [])
            except OverBudget as error:  # the matches found so far stand; the rest of the text is not read
                evidence.append(attempt("request-cap", None, str(error), 0))
                break
            evidence.extend(result.evidence)
            if result.doi:
                matches.append(result)
        if more:
            evidence.append(attempt("pieces-cap", None, f"only the first {cap} matched", 0))
        lead = matches[0] if matches else Result(text)
        return replace(lead, input=text, evidence=tuple(evidence), matches=tuple(matches))

    def _one(self, text: str, evidence: list[dict]):
        """One URL, DOI or PII (alone, or a piece of free text); a URL is fetched as Setup.fetch_policy says."""
        url = as_url(text)
        if url is not None and (why := malformed(url)):
            # No page to fetch and no domain to vouch, at once: a DOI inside a URL is no literal DOI.
            evidence.append(attempt("malformed-url", url, why, 0))
            return Result(text, evidence=tuple(evidence))
        host = None if url is None else urlsplit(url).hostname  # read once: each reading splits the netloc anew
        found = literal(text)
        if found and (matched := (yield from self._literal(text, found, evidence))):
            return matched
        if url is None or host in self.setup.resolver_hosts:
            # A DOI with junk after it, in a sentence or a reference, or on the resolver: cut as a URL is.
            tried = found[1] if found else None
            for candidate in url_candidates(text, self.setup.candidates):
                if candidate == tried:
                    continue
                exists, requests = yield from self._ask(Exists(candidate))
                evidence.append(attempt("doi-literal", candidate, "exists" if exists else "not-found", requests))
                if exists:
                    return Result(text, candidate, "doi-literal", "literal", evidence=tuple(evidence))
        identifier = pii(text)
        if identifier:
            dois, requests = yield from self._ask(Pii(tuple(pii_variants(identifier))))
            evidence.append(attempt("pii", identifier, f"found {len(dois)}", requests))
            if len(dois) == 1:  # a PII shared by several DOIs says nothing trustworthy
                return Result(text, dois[0], "pii", "lookup", evidence=tuple(evidence))
        if url is None or host in self.setup.resolver_hosts:
            return Result(text, evidence=tuple(evidence))
        fetch = self.setup.fetch and self._fetched(url)
        matched = yield from self._url(url, evidence, fetch)
        if matched:
            return matched
        if fetch:
            return (yield from self._page(url, evidence))
        if self.setup.fetch:  # the policy, not the run, kept this page from being fetched: said in the evidence
            evidence.append(attempt("fetch", url, NOT_FETCHED, 0))
        return Result(text, evidence=tuple(evidence))

    def _fetched(self, url: str) -> bool:
        """Whether a URL is fetched (its page, its DOIs resolved): its host is a domain the artifact lists, as the
        Percolator's filter has it (the exact host: a subdomain is another domain), or fetch_policy is "all"; others
        are matched from the string alone."""
        return self.setup.fetch_policy == "all" or domain(url) in self.setup.decisions.domains

    def _literal(self, text: str, found: tuple[str, str], evidence: list[dict]):
        """The input as one DOI or shortDOI, when the registry knows it; else None."""
        kind, value = found
        if kind == "short":
            doi, requests = yield from self._ask(Alias(value))
            evidence.append(attempt("doi-literal", value, "alias" if doi else "unknown-short-doi", requests))
        else:
            exists, requests = yield from self._ask(Exists(value))
            doi = value if exists else None
            evidence.append(attempt("doi-literal", value, "exists" if exists else "not-found", requests))
        return Result(text, doi, "doi-literal", "literal", evidence=tuple(evidence)) if doi else None

    def _url(self, text: str, evidence: list[dict], fetch: bool):
        """landing-page-url: the first candidate DOI in the URL that exists, verified or no match; `fetch`: whether
        resolving it may check it."""
        for candidate in url_candidates(text, self.setup.candidates):
            exists, requests = yield from self._ask(Exists(candidate))
            if not exists:
                evidence.append(attempt("landing-page-url", candidate, "not-found", requests))
                continue
            verification = None
            if fetch:
                verification, _, elsewhere = yield from self._checked(candidate, text, (), evidence, "landing-page-url")
                if elsewhere and not verification and names_below(candidate, text):
                    # The site puts the DOI's own page elsewhere, and the URL names something inside it (a book's
                    # chapter): the domain's record cannot vouch for the container's DOI. Read the page.
                    evidence.append(attempt("landing-page-url", candidate, "names-below-the-doi", 0))
                    return None
            verification = verification or self._vouched(prefix(candidate), [text])
            evidence.append(attempt("landing-page-url", candidate, verification or "unverified", 0))
            if verification:  # the page itself was not fetched: its subject is the input, tracking removed
                subject = subject_url(text, text, [])
                method = "landing-page-url"
                return Result(text, candidate, method, verification, subj_id=subject, evidence=tuple(evidence))
            return None  # the URL's own DOI exists but nothing vouches for it here: read the page instead
        return None

    def _vouched(self, doi_prefix: str, urls: list) -> str | None:
        """The best level the artifact's record of the urls' domains (the input's, the page's) gives the prefix."""
        best = None
        for url in filter(None, urls):
            level = domain_verification(self.setup.decisions, domain(url), doi_prefix, allow_domain_only=True)
            best = level if stronger(level, best) else best
        return best

    def _checked(self, doi: str, url: str, page: tuple, evidence: list[dict], step: str):
        """(checked-url-exact / -basic or None, the checks behind a basic one, whether resolving the DOI reached another
        page of the same hosts). Exact: the DOI led to precisely the input URL, as the seeds define it; basic: to almost
        the input, or to the page the input led to (`page`: its (URL, check) pairs, its final URL and canonical link)."""
        resolved, requests = yield from self._ask(Resolve(doi))
        outcome, checks, elsewhere = None, (), False
        final = resolved.final_url
        if final and not resolved.error:
            if final == url:
                outcome = "checked-url-exact"
            elif same_basic(final, url):
                outcome = "checked-url-basic"
            elif found := next((check for other, check in page if same_basic(final, other)), None):
                outcome, checks = "checked-url-basic", (found,)
            else:
                hosts = {domain(url)} | {domain(other) for other, _ in page}
                elsewhere = 200 <= (resolved.status or 0) < 300 and domain(final) in hosts
        evidence.append(attempt(step, doi, f"resolves to {final or resolved.error}", requests))
        return outcome, checks, elsewhere

    def _titled(self, doi: str, titles: list, evidence: list[dict], step: str):
        """ "matches" or "differs": whether the page states the DOI's registered title (`titles`: the page's distinctive
        ones, the only ones that can match); None when no title was compared (a registry that did not answer costs this
        check, not the input's other chances)."""
        if not titles:  # no title of the page could match: spare the registry
            return None
        try:
            registered, requests = yield from self._ask(Titles(doi))
        except LookupFailed as error:
            evidence.append(attempt(step, doi, f"title lookup failed: {error}", 0))
            return None
        if registered is None or not registered[0]:  # no record, or one without a title: nothing to compare
            evidence.append(attempt(step, doi, "no registered title", requests))
            return None
        if not any(distinctive(words(title)) for title in registered[0]):  # "Editorial": many works' title
            evidence.append(attempt(step, doi, "registered title too short to tell", requests))
            return None
        same = same_work(*registered, titles)
        evidence.append(attempt(step, doi, "title matches" if same else "title differs", requests))
        return "matches" if same else "differs"

    def _page(self, text: str, evidence: list[dict]):
        """landing-page-meta-tag, then landing-page-page-text, on the fetched page."""
        if len(text) > MAX_URL_LENGTH:  # no server takes it: not asked
            evidence.append(attempt("fetch", text, "url-too-long", 0))
            return Result(text, evidence=tuple(evidence))
        page, _ = yield from self._ask(Fetch(text))
        headers = page.headers or {}
        failure = page.error or page_failure(page.status, headers.get("content-type"), headers, page.body or b"")
        evidence.append(attempt("fetch", text, failure or f"{page.status} {page.final_url}", page.hops))
        if failure:
            return Result(text, url=page.final_url, evidence=tuple(evidence))
        read = read_page(page.body, page.headers.get("content-type"))
        # The page's own word for its URL (its final URL, its one canonical link): a DOI resolving there is the
        # page's (a legacy URL served without a redirect, a full text whose canonical is its abstract).
        canonical = one_canonical(page.final_url, read["canonicals"])
        subject = canonical or subject_url(text, page.final_url, [])  # the subject rule, the canonical read once
        own = ((page.final_url, "resolves-to-final-url"), (canonical, "resolves-to-canonical-url"))
        own = tuple((url, check) for url, check in own if url and url != text)
        urls = list(dict.fromkeys([text, page.final_url, subject]))
        served = [text, page.final_url]  # the domains vouching: asked for and served from, never a canonical's host
        titles = [title for title in read["titles"] if distinctive(title)]  # judged once, for every candidate
        best = None
        for doi in rank_meta_dois(read["meta-tags"])[: self.setup.candidates]:
            found = yield from self._meta_tag(doi, text, (own, urls, served, titles), evidence)
            if found and (best is None or stronger(found[1], best[1])):
                best = found
            if best and best[1] == "checked-url-exact":  # nothing is better
                break
        if best:
            doi, verification, checks = best
            method = "landing-page-meta-tag"
            return Result(text, doi, method, verification, checks, page.final_url, subject, tuple(evidence))
        known = prefixes_on(self.setup.decisions, domain(page.final_url))
        for doi in rank_text_dois(find_dois(read["text"]), known, self.setup.text_candidates):
            step = "landing-page-page-text"
            verification, checks, _ = yield from self._checked(doi, text, own, evidence, step)
            if not verification and (yield from self._titled(doi, titles, evidence, step)) == "matches":
                # No domain record alone: reference lists are full of other works' DOIs. The title is the page's.
                verification, checks = self._vouched(prefix(doi), served), ("registered-title",)
            if verification:
                method = "landing-page-page-text"
                return Result(text, doi, method, verification, checks, page.final_url, subject, tuple(evidence))
        return Result(text, url=page.final_url, subj_id=subject, evidence=tuple(evidence))

    def _meta_tag(self, doi: str, text: str, read: tuple, evidence: list[dict]):
        """(doi, verification, checks) for a DOI the page's meta tags state, or None: checked by resolving it, else
        vouched for by the artifact's record of the domain, as the Percolator does, with the checks that back it.
        `read`: the page's own URLs with their checks, the URLs that may state the DOI, the domains, its titles."""
        own, urls, served, titles = read
        step = "landing-page-meta-tag"
        exists, requests = yield from self._ask(Exists(doi))
        if not exists:  # a DOI the registry does not know is never the answer, whatever the domain's record
            evidence.append(attempt(step, doi, "not-found", requests))
            return None
        verification, checks, elsewhere = yield from self._checked(doi, text, own, evidence, step)
        if not verification:
            checks = ("stated-in-url",) if any(url_states(doi, u) for u in urls) else ()
            verification = self._vouched(prefix(doi), served)
            title = None
            if verification and not checks and (elsewhere or verification != "confirmed-domain-prefix"):
                title = yield from self._titled(doi, titles, evidence, step)
                checks = ("registered-title",) if title == "matches" else ()
            if elsewhere and not checks:  # a page naming another work of its site's prefix: its record cannot vouch
                evidence.append(attempt(step, doi, "another-page-of-this-site", 0))
                return None
            if title == "differs":  # the page is about another work than the one its tag names: no domain vouches
                evidence.append(attempt(step, doi, "another-work-by-its-title", 0))
                return None
        evidence.append(attempt(step, doi, " + ".join([verification or "unverified", *checks]), 0))
        return (doi, verification, checks) if verification else None


def drive(matching: Matching, ask: Callable[[Question], tuple]) -> Result:
    """The input's Result, each question answered by ask(question) -> (value, requests), which may raise
    LookupFailed; what drives the cascade without a network (tests, a table of answers)."""
    steps = matching.steps()
    try:
        question = next(steps)
        while True:
            try:
                answer = ask(question)
            except LookupFailed as error:
                question = steps.throw(error)
            else:
                question = steps.send(answer)
    except StopIteration as done:
        return done.value


async def drive_async(matching: Matching, ask) -> Result:
    """drive, with `ask` a coroutine function: the matcher spider's Scrapy requests, a service's own client."""
    steps = matching.steps()
    try:
        question = next(steps)
        while True:
            try:
                answer = await ask(question)
            except LookupFailed as error:
                question = steps.throw(error)
            else:
                question = steps.send(answer)
    except StopIteration as done:
        return done.value
