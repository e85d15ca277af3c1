"""Per-prefix samples: each prefix an owner lists gets its floor of DOIs (rule: landing.core.sampling). A mixin of
the doi_sampler spider, which provides the endpoints, `_api` and `_api_failed` (landing.sampler.answers)."""
import asyncio

from landing.core import sampling
from landing.core.doi import normalise, well_formed
from landing.core.sources import crossref, datacite
from landing.sampler.answers import ANSWER_ERRORS, payload_of


class PrefixSamples:
    async def _with_prefixes(self, sample: dict, dois: list[str]) -> list[str] | None:
        """The owner's sample: its member-wide DOIs, plus its own sample of each listed prefix they left short,
        composed to its budget; None when one of those requests failed (then, as when the owner's own request
        fails, the owner is not sampled in this crawl and the next crawl of the run asks again)."""
        per_prefix, prefixes = sample.get("sample/per-prefix", 0), sample.get("sample/prefixes") or []
        short = sampling.short_prefixes(dois, prefixes, per_prefix)
        topped = {}
        if short:
            # Each asks for the floor plus what the member-wide sample has: a random page may repeat those.
            answers = await asyncio.gather(*(self._prefix_sample(sample, prefix, per_prefix + have)
                                             for prefix, have in short.items()))
            failed = next((answer for answer in answers if answer[0] is None), None)
            if failed:
                self._api_failed(failed[1], failed[2])
                return None
            topped = {prefix: answer[0] for prefix, answer in zip(short, answers)}
            self.crawler.stats.inc_value("landing/run/prefix_samples", len(short))
        composed = sampling.compose(dois, topped, prefixes, per_prefix, sample["sample/size"])
        added = len(set(composed) - set(dois))
        if added:
            self.crawler.stats.inc_value("landing/run/prefix_dois", added)
        return composed

    async def _prefix_sample(self, sample: dict, prefix: str, size: int):
        """(the prefix's sampled DOIs or None, the request, why it failed): asked past the scheduler, through the
        downloader's middlewares (the API's slot and pace, retries), a bad answer asked again up to RETRY_TIMES."""
        owner = sample["sample/owner"]
        if sample["sample/ra"] == "crossref":
            url, parse = crossref.prefix_sample_url(self.crossref_api, owner, prefix, size, self.mailto), \
                crossref.parse_dois
        else:
            url, parse = datacite.prefix_sample_url(self.datacite_api, owner, prefix, size), datacite.parse_dois
        request = self._api(url, None, sample=sample)
        why = None
        for _ in range(self.settings.getint("RETRY_TIMES") + 1):
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
