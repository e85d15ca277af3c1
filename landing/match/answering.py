"""The one driver of the cascade: a `Matcher` answers inputs a call each, with the Setup it builds from the settings,
the artifact and the input's fetch policy, its questions answered by the crawler's engine (landing.match.lookups).

`scrapy match` (MatcherSpider, which the Python API runs) and the service (ResidentSpider: HTTP and streams) all
answer through it, and so through `bounded`: a deadline, a registry that did not answer, or an odd input each end that
input's Result with its reason, never another input's.
"""

import asyncio
from collections import Counter
from dataclasses import replace

from landing import config
from landing.core.matching.cascade import Matching, Setup, drive, drive_async, fetching
from landing.core.matching.decisions import Decisions
from landing.core.matching.page_slots import reserve_of
from landing.core.matching.results import LookupFailed, Result
from landing.match.cache_layers import Layer
from landing.match.lookups import Lookups
from landing.match.page_turns import PageSlots, Turn


def short(text: str) -> str:
    """An input as a log line names it: a megabyte of junk is not repeated in the log.

    >>> short("x" * 300)[-22:]
    '... (300 characters)'
    """
    return text if len(text) <= 200 else f"{text[:200]}... ({len(text):,} characters)"


async def bounded(
    matching: Matching, ask, deadline: float, logger, *, inflight: set | None = None, turn: Turn | None = None
) -> Result | None:
    """The input's Result within `deadline` seconds (0: none), not counting what its `turn` waited for a page slot;
    None when the cascade's task was cancelled by someone else (a stop: the owner of `inflight`, which holds the task
    while it runs, cancelled it)."""
    work = asyncio.ensure_future(_within(matching, ask, deadline, turn))
    if inflight is not None:
        inflight.add(work)
    try:
        return await work
    except TimeoutError:
        return matching.stopped("deadline", f"no answer within {deadline:g} s")
    except asyncio.CancelledError:
        if work.cancelled() and not asyncio.current_task().cancelling():
            return None  # the work was stopped, not its caller: the input is dropped, the caller goes on
        raise
    except LookupFailed as error:  # a registry that did not answer is no "not found": say which it was
        logger.warning("matching %r: %s", short(matching.text), error)
        return matching.stopped("lookup-failed", str(error))
    except Exception as error:  # one odd input must cost its own answer, never the others' or a silent gap
        # The user's terminal gets one line; the traceback is for whoever runs with -L DEBUG.
        logger.error("matching %r failed: %s: %s", short(matching.text), type(error).__name__, error)
        logger.debug("matching %r failed", short(matching.text), exc_info=True)
        return matching.stopped("error", f"{type(error).__name__}: {error}")
    finally:
        if inflight is not None:
            inflight.discard(work)


async def _within(matching: Matching, ask, deadline: float, turn: Turn | None) -> Result:
    """The cascade driven under the deadline, which the turn pauses while it waits for a slot."""
    async with asyncio.timeout(deadline or None) as timer:
        if turn is not None:
            turn.timer = timer
        return await drive_async(matching, ask)


def at_once(matching: Matching, held) -> Result | None:
    """The input's Result when `held(question)` (Lookups.held) answers every question it asks at once, with no turn of
    the event loop: cheaper than a round trip to a shared cache; None when one is not held (or the input is odd),
    for `bounded` to answer as it answers any input."""
    try:
        return drive(matching, held)
    except Exception:  # NotHeld, or an input the cascade fails on: `bounded` says so, once
        return None


# A result that stopped says nothing lasting about its input: asked again, it may be answered.
STOPS = frozenset({"deadline", "lookup-failed", "error", "request-cap"})


class MatcherClosed(RuntimeError):
    """The matcher was closed (the service is stopping) before the input was answered."""


def stopped(result: dict) -> bool:
    """Whether a result's JSON is a stop (deadline, a registry that did not answer, an error, the request cap).

    >>> stopped({"evidence": [{"step": "fetch"}, {"step": "deadline"}]}), stopped({"evidence": []})
    (True, False)
    """
    evidence = result.get("evidence") or ()
    return bool(evidence) and evidence[-1].get("step") in STOPS


def base_setup(cfg: config.Config) -> Setup:
    """The caps every input is matched with (LANDING_MATCH_*), before the artifact and the fetch policy."""
    return Setup(
        decisions=Decisions(),
        resolver_hosts=cfg.resolver_hosts,
        fetch=True,
        pieces=cfg.match_pieces,
        candidates=cfg.match_candidates,
        text_candidates=cfg.match_text_candidates,
        requests=cfg.match_requests,
        evidence=cfg.match_evidence,
    )


class Matcher:
    """Long-lived: answers inputs a call each, any number of calls at once (up to `concurrency` of them doing page work,
    shared between clients as landing.core.matching.page_slots says, `reserve` of them kept from any one client), with
    the artifact `holder` holds when the input starts, the caps and deadline of `scrapy match`."""

    def __init__(
        self,
        holder,
        base: Setup,
        ask,
        answers,
        *,
        deadline: float,
        concurrency: int,
        reserve: int = 0,
        logger,
        cancel=None,
        results: Layer | None = None,
        held=None,
    ):
        """holder: the artifact's `decisions` and `version` (landing.match.loaded_artifact); ask: the cascade's questions
        answered (Lookups.answer); answers: the caches (landing.match.answer_cache's Answers); results: where results are
        kept (default: answers.results); cancel(): cancels every question in flight (Lookups.cancel); held: the
        questions answered at once from this process's answers (Lookups.held), tried before any round trip."""
        self.holder, self.base, self.ask, self.answers, self.logger = holder, base, ask, answers, logger
        self.results = answers.results if results is None else results
        # The result layers' at-once parts, read once (None where the layers have none): _at_once runs per input.
        self._held_result = getattr(self.results, "held", None)
        self._missed = getattr(self.results, "missed", None)
        self._keep = getattr(self.results, "keep", None)
        self.cancel, self.held = cancel, held
        self.keeping: set = set()  # results being written to the layers beyond this process's
        # Page work only, held until its input ends: what is held at once (page bodies awaiting their checks).
        self.deadline, self.pages = deadline, PageSlots(concurrency, reserve)
        self.inflight: set = set()
        self.counts: Counter = Counter()  # inputs; by method, verification and stop; cache hits and misses
        self.current = 0  # inputs being answered now
        self.closed = False
        self._setups: dict = {}
        self._decisions = None

    @property
    def version(self) -> str:
        """The artifact version answers name now ("" without an artifact)."""
        return self.holder.version

    def setup(self, fetch: str) -> Setup:
        """The Setup an input starting now is matched with: the current artifact, the policy `fetch`."""
        decisions = self.holder.decisions
        if decisions is not self._decisions:  # a new version: Setups are rebuilt once, not per input
            self._decisions, self._setups = decisions, {}
        found = self._setups.get(fetch)
        if found is None:
            found = self._setups[fetch] = fetching(replace(self.base, decisions=decisions), fetch)
        return found

    def match_now(self, text: str, fetch: str) -> dict | None:
        """match's result with no turn of the event loop, when this process holds it or every answer its cascade asks
        for (`_at_once`); None when it needs the loop (then `match(..., at_once=False)`), or once closed."""
        setup = self.setup(fetch)
        if self.closed or self.held is None:
            return None
        return self._at_once((setup.decisions.version, fetch, text), setup)

    async def match(self, text: str, fetch: str = "known", client: str = "", at_once: bool = True) -> dict:
        """The Result's JSON for `text`, exactly the object `scrapy match` prints for it (without "number"); `client`:
        whose page slots its page work takes (the service's peer address); `at_once`: False when `match_now` found it
        needs the loop; ValueError for a fetch policy not in FETCHES; MatcherClosed once the matcher is closed."""
        setup = self.setup(fetch)  # the input keeps the artifact it started with, whatever is reloaded meanwhile
        if self.closed:
            raise MatcherClosed("the matcher is closed")
        version = setup.decisions.version
        self.current += 1
        try:
            if (
                at_once
                and self.held is not None
                and (found := self._at_once((version, fetch, text), setup)) is not None
            ):
                return found
            _, found = await self.results.get((version, fetch, text))
            if found is not None:
                self.counts["cache-hits"] += 1
                self._count(found)
                return found
            self.counts["cache-misses"] += 1
            turn = Turn(self.pages, client, self.ask)
            try:
                matching = Matching(text, setup)
                result = await bounded(
                    matching, turn.ask, self.deadline, self.logger, inflight=self.inflight, turn=turn
                )
            finally:
                turn.end()
            if result is None:
                raise MatcherClosed("the matcher was closed while the input was being answered")
            found = result.to_json()
            if not stopped(found):
                await self.results.put((version, fetch, text), found)
            self._count(found)
            return found
        finally:
            self.current -= 1

    def _at_once(self, key: tuple, setup: Setup) -> dict | None:
        """An input's result with no turn of the event loop, from this process's own layers, when it holds the result
        or every answer its cascade asks for (kept then in the others, Redis, in the background); else None."""
        found = self._held_result(key)[1] if self._held_result is not None else None
        if found is not None:
            self.counts["cache-hits"] += 1
        else:
            result = at_once(Matching(key[2], setup), self.held)
            if result is None:
                return None
            self.counts["cache-misses"] += 1
            if self._missed is not None:
                self._missed()  # counted as `get` counted it before: the answers' stats say the same
            found = result.to_json()
            stop = stopped(found)
            if not stop and (self._keep is None or not self._keep(key, found)):
                keeping = asyncio.ensure_future(self.results.put(key, found))
                self.keeping.add(keeping)
                keeping.add_done_callback(self.keeping.discard)
            self._count(found, stop)
            return found
        self._count(found)
        return found

    def _count(self, result: dict, stop: bool | None = None) -> None:
        """Count an answer; `stop`: whether it is a stop, when the caller knows already."""
        self.counts["inputs"] += 1
        self.counts[("answer", (result["method"] or "none", result["verification"] or "none"))] += 1
        if stopped(result) if stop is None else stop:
            self.counts[("stopped", result["evidence"][-1]["step"])] += 1

    def stats(self) -> dict:
        """Counters for /metrics and /healthz: inputs, by_answer ((method, verification) -> inputs; "none" for no
        match), stopped (why -> inputs), cache_hits, cache_misses, in_flight, version, the answers cache's own counters
        (`answers`) and the page slots' (`pages`: landing.match.page_turns.PageSlots.stats)."""
        by: dict = {}
        for key, value in self.counts.items():
            if isinstance(key, tuple):
                by.setdefault(key[0], {})[key[1]] = value
        return {
            "inputs": self.counts["inputs"],
            "by_answer": by.get("answer", {}),
            "stopped": by.get("stopped", {}),
            "cache_hits": self.counts["cache-hits"],
            "cache_misses": self.counts["cache-misses"],
            "in_flight": self.current,
            "version": self.version,
            "answers": dict(getattr(self.answers, "stats", {}) or {}),
            "pages": self.pages.stats(),
        }

    def stop(self) -> None:
        """Refuse new inputs and drop those in progress (each raises MatcherClosed), their questions and page fetches
        cancelled rather than waited for."""
        self.closed = True
        for work in list(self.inflight):
            work.cancel()
        if self.cancel is not None:
            self.cancel()

    async def close(self) -> None:
        """stop(), and close the caches once the results being kept are."""
        self.stop()
        while self.keeping:
            await asyncio.gather(*self.keeping, return_exceptions=True)
        await self.answers.close()


def matcher_of(crawler, holder, answers, logger, *, results: Layer | None = None, reserve: float = 0.0) -> Matcher:
    """The crawler's Matcher, as its LANDING_MATCH_* settings have it: its questions asked through the crawler's engine
    and kept in `answers` (landing.match.answer_cache.answers_of), the artifact `holder` holds, results kept in `results`
    (default: answers.results), `reserve` (a share) of its page slots kept from any one client."""
    cfg = config.of(crawler)
    lookups = Lookups.of(crawler, answers)
    return Matcher(
        holder,
        base_setup(cfg),
        lookups.answer,
        answers,
        deadline=cfg.match_deadline,
        concurrency=cfg.match_concurrency,
        reserve=reserve_of(cfg.match_concurrency, reserve),
        logger=logger,
        cancel=lookups.cancel,
        results=results,
        held=lookups.held,
    )
