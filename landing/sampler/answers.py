"""The sampler's API requests and what their answers cost: a mixin of the doi_sampler spider, which provides the
`frontier` and `_listed` (landing.sampler.listing) that a failed request settles."""

import json

import scrapy

from landing.crawl.stopping import Stopped

API_PRIORITY = 100  # sampling runs ahead of visits, so every owner's first DOI is visited before any second
ANSWER_ERRORS = (ValueError, TypeError, KeyError, AttributeError)  # what parsing an answer that is not the API's raises


def payload_of(body: bytes) -> dict:
    """The JSON object an API answered; ValueError when the body is not one."""
    payload = json.loads(body)
    if not isinstance(payload, dict):
        raise ValueError(f"a JSON {type(payload).__name__}, not an object")
    return payload


class ApiRequests:
    def _api(self, url, callback, **meta):
        # APIs are for machines: their terms, not robots.txt, govern them. Each API request of a run is asked
        # once (dont_filter: the dupefilter's fingerprints would only grow with the owners).
        return scrapy.Request(
            url,
            callback=callback,
            errback=self.api_failed,
            priority=API_PRIORITY,
            dont_filter=True,
            meta={"dont_obey_robotstxt": True, "landing_api": True, **meta},
        )

    def api_failed(self, failure):
        if failure.check(Stopped):
            return  # the crawl is stopping: its run's next crawl asks again
        self._api_failed(failure.request, failure.getErrorMessage())

    def _api_failed(self, request, why: str) -> None:
        """An API request that got no usable answer: counted, logged with its URL, and its part of the run settled
        (a listing request's owners are left out of the plan until a later crawl lists them; an owner's sample is
        left for the next crawl of the run)."""
        self.crawler.stats.inc_value("landing/api_failed")
        meta = request.meta
        if "listing" in meta:
            self.logger.error(
                "Listing request failed, the owners it lists are left for the next crawl: %s (%s)", request.url, why
            )
            self.crawler.stats.inc_value("landing/run/listing_failed")
            self._listed(meta["listing"], failed=True)
        elif "sample" in meta:
            self.logger.error(
                "Sample request failed, owner %s/%s is not sampled in this run: %s (%s)",
                meta["sample"]["sample/ra"],
                meta["sample"]["sample/owner"],
                request.url,
                why,
            )
            self.crawler.stats.inc_value("landing/run/samples_failed")
            self.frontier.leave(meta["sample"]["sample/size"])
        else:
            self.logger.error("API request failed: %s (%s)", request.url, why)

    def _answer(self, response, parse):
        """parse(the JSON object the API answered); None when the answer is not what the API documents (an HTML
        page with a 200, a field of the wrong type): asked again up to RETRY_TIMES, then an API failure like any
        other, never a traceback."""
        try:
            return parse(payload_of(response.body))
        except ANSWER_ERRORS as error:
            why, request = f"not the JSON the API documents: {type(error).__name__}: {error}", response.request
            tries, retries = request.meta.get("landing_answer_tries", 0), self.settings.getint("RETRY_TIMES")
            if tries < retries:  # a portal's page or a truncated body may not last
                self.logger.warning("Asking again (%d of %d): %s (%s)", tries + 1, retries, request.url, why)
                # Its part of the run (a listing count, a sample's reservation) waits for this answer instead.
                self.crawler.engine.crawl(request.replace(meta={**request.meta, "landing_answer_tries": tries + 1}))
                return None
            self._api_failed(request, why)
            return None
