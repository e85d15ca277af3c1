"""The sampler's API requests and what their answers cost: a failed request settles its part of the run (a listing
request's count in landing.sampler.listing, a sample's reservation in the frontier)."""

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

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


@dataclass(frozen=True)
class Api:
    """Makes the sampler's API requests, reads their answers, and settles those that fail.

    frontier: the bounded frontier a failed sample gives its reservation back to; errback: the spider's callback for a
    failed request; listing_failed(source): a listing request of `source` failed; retries: RETRY_TIMES;
    delta_failed(registry): a registry delta's request failed (landing.sampler.delta_watch).
    """

    crawler: Any
    logger: Any
    frontier: Any
    errback: Callable
    listing_failed: Callable[[str], None]
    retries: int
    delta_failed: Callable[[str], None] = lambda registry: None

    def request(self, url, callback, **meta):
        # APIs are for machines: their terms, not robots.txt, govern them. Each API request of a run is asked
        # once (dont_filter: the dupefilter's fingerprints would only grow with the owners).
        return scrapy.Request(
            url,
            callback=callback,
            errback=self.errback,
            priority=API_PRIORITY,
            dont_filter=True,
            meta={"dont_obey_robotstxt": True, "landing_api": True, **meta},
        )

    def failed(self, failure):
        if failure.check(Stopped):
            return  # the crawl is stopping: its run's next crawl asks again
        self.refused(failure.request, failure.getErrorMessage())

    def refused(self, request, why: str) -> None:
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
            self.listing_failed(meta["listing"])
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
        elif "delta" in meta:
            self.logger.error(
                "Registry delta request failed, the next look asks for the same window again: %s (%s)",
                request.url,
                why,
            )
            self.delta_failed(meta["delta"])
        else:
            self.logger.error("API request failed: %s (%s)", request.url, why)

    def answer(self, response, parse):
        """parse(the JSON object the API answered); None when the answer is not what the API documents (an HTML
        page with a 200, a field of the wrong type): asked again up to RETRY_TIMES, then an API failure like any
        other, never a traceback."""
        try:
            return parse(payload_of(response.body))
        except ANSWER_ERRORS as error:
            why, request = f"not the JSON the API documents: {type(error).__name__}: {error}", response.request
            tries = request.meta.get("landing_answer_tries", 0)
            if tries < self.retries:  # a portal's page or a truncated body may not last
                self.logger.warning("Asking again (%d of %d): %s (%s)", tries + 1, self.retries, request.url, why)
                # Its part of the run (a listing count, a sample's reservation) waits for this answer instead.
                self.crawler.engine.crawl(request.replace(meta={**request.meta, "landing_answer_tries": tries + 1}))
                return None
            self.refused(request, why)
            return None
