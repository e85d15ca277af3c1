"""An owner's sample: asked for, answered, its prefixes' floors added (rule: landing.core.sampling.sample_sizes), stored before
its DOIs are visited."""

import asyncio

from landing import clock
from landing.core.continuous import rotation
from landing.core.pids.doi import normalise, well_formed
from landing.core.registries import crossref, datacite
from landing.core.sampling import runs, sample_sizes
from landing.sampler.answers import ANSWER_ERRORS, payload_of
from landing.sampler.frontier_redis import scheduler_of
from landing.sampler.items import LedgerItem


class Samples:
    """Owners' samples: asked for, answered, and stored in the open run (landing.sampler.run.OpenRun) each answer is
    read with, whose `pid_and_visit` visits their DOIs.

    api: the sampler's landing.sampler.answers.Api; callbacks: the spider, whose parse_sample and parse_shared_sample
    answer the requests made here; cfg: the crawl's landing.config.Config; frontier: the bounded frontier each
    sample reserves its size in; retries: RETRY_TIMES, for a prefix's sample asked past the scheduler.
    """

    def __init__(self, api, callbacks, cfg, crawler, logger, frontier, retries: int):
        self.api = api
        self.callbacks = callbacks
        self.crawler = crawler
        self.logger = logger
        self.frontier = frontier
        self.retries = retries
        self.shared = bool(cfg.frontier_redis)  # visits go through the workers' Redis frontier
        self.crossref_api = cfg.crossref_api
        self.datacite_api = cfg.datacite_api
        self.mailto = cfg.mailto

    def request(self, sample):
        # A refresh asks for more than its size (`sample/ask`) to keep DOIs not drawn before: one request either way.
        size, owner, prefix = (
            sample.get("sample/ask") or sample["sample/size"],
            sample["sample/owner"],
            sample.get("sample/prefix"),
        )
        if sample["sample/ra"] == "crossref" and prefix:  # continuous mode samples one prefix of an owner
            url = crossref.prefix_sample_url(self.crossref_api, owner, prefix, size, self.mailto)
        elif sample["sample/ra"] == "crossref":
            url = crossref.sample_url(self.crossref_api, owner, size, self.mailto)
        elif prefix:
            url = datacite.prefix_sample_url(self.datacite_api, owner, prefix, size)
        else:
            url = datacite.sample_url(self.datacite_api, owner, size)
        callback = self.callbacks.parse_shared_sample if self.shared else self.callbacks.parse_sample
        return self.api.request(url, callback, sample=sample)

    async def parse_sample(self, response, run):
        """The sample `response` answers, stored in `run` (landing.sampler.run.OpenRun), then its DOIs' visits."""
        sample = await self._sampled(response)
        if sample is None:
            return
        # The sample first: once stored, a resumed run visits exactly these DOIs, never a second sample.
        yield LedgerItem("sample", runs.sample_id(run.id, sample["sample/order"]), sample)
        for rank, doi in enumerate(sample["sample/dois"]):
            for pid_or_request in run.pid_and_visit(sample, rank, doi):
                yield pid_or_request

    async def parse_shared_sample(self, response, run):
        """parse_sample for a shared frontier: the sample is written before any worker can visit its DOIs (else a
        leader killed in between leaves visits of a sample the next leader asks for again, and gets other DOIs).
        Its visits go to the shared frontier in one round trip, not through the engine one Redis call at a time
        (bench/README.md "Figures behind choices in the code")."""
        sample = await self._sampled(response)
        if sample is None:
            return
        if not run.lead.holds():
            # Drawn by a leader that lost the lead meanwhile: the new leader draws this owner itself, and two draws of
            # one sample must never share its visits. Its sample document keeps no DOIs, so whoever leads draws it.
            self.frontier.leave(len(sample["sample/dois"]))
            self.crawler.stats.inc_value("landing/run/samples_dropped")
            self.logger.warning(
                "Dropped the sample of %s/%s: this worker no longer leads the run",
                sample["sample/ra"],
                sample["sample/owner"],
            )
            return
        await run.docs.call(run.ledger.store, "sample", runs.sample_id(run.id, sample["sample/order"]), sample)
        visits = [
            request
            for rank, doi in enumerate(sample["sample/dois"])
            for request in run.pid_and_visit(sample, rank, doi)
        ]
        try:
            scheduler_of(self.crawler).share(visits)
        finally:  # pushed or not, they leave this worker's count (unpushed, a resumed lead pushes them again)
            for _ in visits:
                self.frontier.queued()

    async def _sampled(self, response):
        """The owner's sample document with the DOIs the API answered (and its prefixes' floors), or None (an API
        failure); the frontier's reservation settled either way."""
        sample = response.meta["sample"]
        parse = crossref.parse_dois if sample["sample/ra"] == "crossref" else datacite.parse_dois
        answered = self.api.answer(response, lambda payload: [normalise(d) for d in parse(payload)])
        if answered is None:
            return None
        dois = [doi for doi in answered if well_formed(doi)]
        if len(dois) < len(answered):  # an empty id, a NUL or a line break in a "DOI": the API's fault, counted
            self.crawler.stats.inc_value("landing/run/bad_dois", len(answered) - len(dois))
            self.logger.warning(
                "%d of the %d DOIs sampled for %s/%s are not DOIs and are not visited: %s",
                len(answered) - len(dois),
                len(answered),
                sample["sample/ra"],
                sample["sample/owner"],
                ", ".join(repr(d) for d in answered if not well_formed(d))[:300],
            )
        if sample.get("sample/panel") or sample.get("sample/drawn"):  # a refresh: its panel, then fresh DOIs
            dois = rotation.drawn_fresh(
                sample["sample/panel"], dois, sample.get("sample/drawn") or "", sample["sample/size"]
            )
        dois = await self._with_prefixes(sample, dois)
        if dois is None:
            return None
        sample = runs.sampled(sample, dois, clock.stamp())
        self.count(sample)
        self.frontier.leave(sample["sample/size"] - len(sample["sample/dois"]))
        return sample

    def count(self, sample):
        self.crawler.stats.inc_value("landing/run/owners_sampled")
        self.crawler.stats.inc_value("landing/run/dois", len(sample["sample/dois"]))
        self.crawler.stats.inc_value("landing/run/dois_planned_sampled", sample["sample/size"])

    async def _with_prefixes(self, sample: dict, dois: list[str]) -> list[str] | None:
        """The owner's sample: its member-wide DOIs, plus its own sample of each listed prefix they left short,
        composed to its budget; None when one of those requests failed (then, as when the owner's own request
        fails, the owner is not sampled in this crawl and the next crawl of the run asks again)."""
        per_prefix, prefixes = sample.get("sample/per-prefix", 0), sample.get("sample/prefixes") or []
        short = sample_sizes.short_prefixes(dois, prefixes, per_prefix)
        topped = {}
        if short:
            # Each asks for the floor plus what the member-wide sample has: a random page may repeat those.
            answers = await asyncio.gather(
                *(self._prefix_sample(sample, prefix, per_prefix + have) for prefix, have in short.items())
            )
            failed = next((answer for answer in answers if answer[0] is None), None)
            if failed:
                self.api.refused(failed[1], failed[2])
                return None
            topped = {prefix: answer[0] for prefix, answer in zip(short, answers)}
            self.crawler.stats.inc_value("landing/run/prefix_samples", len(short))
        composed = sample_sizes.compose(dois, topped, prefixes, per_prefix, sample["sample/size"])
        added = len(set(composed) - set(dois))
        if added:
            self.crawler.stats.inc_value("landing/run/prefix_dois", added)
        return composed

    async def _prefix_sample(self, sample: dict, prefix: str, size: int):
        """(the prefix's sampled DOIs or None, the request, why it failed): asked past the scheduler, through the
        downloader's middlewares (the API's slot and pace, retries), a bad answer asked again up to RETRY_TIMES."""
        owner = sample["sample/owner"]
        if sample["sample/ra"] == "crossref":
            url, parse = (
                crossref.prefix_sample_url(self.crossref_api, owner, prefix, size, self.mailto),
                crossref.parse_dois,
            )
        else:
            url, parse = datacite.prefix_sample_url(self.datacite_api, owner, prefix, size), datacite.parse_dois
        request = self.api.request(url, None, sample=sample)
        why = None
        for _ in range(self.retries + 1):
            try:
                response = await self.crawler.engine.download_async(request)
            except Exception as error:  # any failure to download is this request's failure, said with its URL
                return None, request, f"{type(error).__name__}: {error}"
            if response.status != 200:
                return None, request, f"HTTP {response.status}"
            try:
                answered = [normalise(doi) for doi in parse(payload_of(response.body))]
            except ANSWER_ERRORS as error:
                why = f"not the JSON the API documents: {type(error).__name__}: {error}"
                continue
            return [doi for doi in answered if well_formed(doi)], request, None
        return None, request, why
