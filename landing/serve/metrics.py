"""The service's Prometheus metrics, in a registry of its own (GET /metrics): its requests, and what its Matcher and
artifact say when scraped."""

from bisect import bisect_left

from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, HistogramMetricFamily, InfoMetricFamily
from prometheus_client.utils import floatToGoString

from landing.core.matching.page_slots import saturation

ROUTES = ("/match", "/healthz", "/metrics", "/openapi.json")
METHODS = ("GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS")  # any other: "other", as a path not routed
# An answer from the artifact alone takes well under a millisecond; a page behind a polite host, seconds.
BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600)


def route_of(path: str) -> str:
    """The route label of a request's path: one of ROUTES, or "other" (a client's typo must not mint labels).

    >>> route_of("/match"), route_of("/nope/../x")
    ('/match', 'other')
    """
    return path if path in ROUTES else "other"


class ServiceMetrics:
    """Requests counted by route, method and status; their latency by route; requests in flight (the service's
    `in_flight`); and at each scrape the Matcher's counters and the artifact held.

    The requests are counted in plain ints and become metric families when scraped: prometheus_client's Counter and
    Histogram take a lock per update, a cost each of thousands of requests a second would pay."""

    def __init__(self, service, holder):
        """service: what holds the Matcher (`.matcher`, None while starting) and counts `in_flight`."""
        self.registry = CollectorRegistry(auto_describe=True)
        self.counts: dict = {}  # (route, method, status) -> requests
        self.latencies: dict = {}  # route -> [requests per bucket (the last: over every bound), their seconds' sum]
        self.registry.register(_RequestCollector(self, service))
        self.registry.register(_MatcherCollector(service, holder))

    def observe(self, route: str, method: str, status: int, seconds: float) -> None:
        key = (route, method if method in METHODS else "other", status)
        self.counts[key] = self.counts.get(key, 0) + 1
        held = self.latencies.get(route)
        if held is None:
            held = self.latencies[route] = [[0] * (len(BUCKETS) + 1), 0.0]
        held[0][bisect_left(BUCKETS, seconds)] += 1  # a bucket counts what is at most its bound
        held[1] += seconds

    def text(self) -> bytes:
        return generate_latest(self.registry)


class _RequestCollector:
    """The requests counted so far, as metric families, when scraped."""

    def __init__(self, metrics: ServiceMetrics, service):
        self.metrics, self.service = metrics, service

    def describe(self):
        return []

    def collect(self):
        requests = CounterMetricFamily(
            "landing_serve_requests", "HTTP requests answered", labels=["route", "method", "status"]
        )
        for (route, method, status), n in sorted(self.metrics.counts.items()):
            requests.add_metric([route, method, str(status)], n)
        yield requests
        latency = HistogramMetricFamily("landing_serve_request_seconds", "Time to answer a request", labels=["route"])
        for route, (counts, total) in sorted(self.metrics.latencies.items()):
            cumulative, buckets = 0, []
            for bound, n in zip((*map(floatToGoString, BUCKETS), "+Inf"), counts, strict=True):
                cumulative += n
                buckets.append((bound, cumulative))
            latency.add_metric([route], buckets, total)
        yield latency
        yield GaugeMetricFamily(
            "landing_serve_requests_in_flight",
            "HTTP requests being answered",
            value=getattr(self.service, "in_flight", 0),
        )


class _MatcherCollector:
    """The Matcher's and the artifact's figures, read when scraped (no second count kept beside theirs)."""

    def __init__(self, service, holder):
        self.service, self.holder = service, holder

    def describe(self):
        return []  # collected at scrape time only: their labels are known then

    def collect(self):
        info = InfoMetricFamily("landing_artifact", "The artifact answers name now")
        info.add_metric([], {"version": self.holder.version or "none", "loaded": self.holder.loaded})
        yield info
        yield CounterMetricFamily(
            "landing_artifact_reloads", "New artifact versions picked up", value=self.holder.reloads
        )
        yield CounterMetricFamily(
            "landing_artifact_unreadable", "Artifact changes that could not be read", value=self.holder.failures
        )
        if self.service.matcher is not None:  # none while the service starts
            yield from _matched(self.service.matcher.stats())
        consumer = getattr(self.service.streams, "consumer", None)
        if consumer is not None:  # a stream consumer beside the HTTP routes, once started
            yield from _consumed(consumer.stats, len(consumer.held))


def _matched(stats: dict):
    """The Matcher's counters as metric families."""
    inputs = CounterMetricFamily(
        "landing_match_inputs", "Inputs answered, by method and verification", labels=["method", "verification"]
    )
    for (method, verification), n in sorted(stats["by_answer"].items()):
        inputs.add_metric([method, verification], n)
    yield inputs
    stops = CounterMetricFamily("landing_match_stopped", "Inputs that stopped unanswered, by why", labels=["why"])
    for why, n in sorted(stats["stopped"].items()):
        stops.add_metric([why], n)
    yield stops
    cache = CounterMetricFamily("landing_match_results_cache", "Results asked of the cache", labels=["outcome"])
    cache.add_metric(["hit"], stats["cache_hits"])
    cache.add_metric(["miss"], stats["cache_misses"])
    yield cache
    shared = CounterMetricFamily(
        "landing_match_answers", "The answers cache's own counters (Redis or in-process)", labels=["outcome"]
    )
    for outcome, n in sorted(stats["answers"].items()):
        if isinstance(n, int | float):
            shared.add_metric([outcome], n)
    yield shared
    yield GaugeMetricFamily("landing_match_inputs_in_flight", "Inputs being answered", value=stats["in_flight"])
    yield from _paged(stats["pages"])


def _paged(pages: dict):
    """The page slots' figures (landing.match.page_turns.PageSlots.stats) as metric families.

    >>> [(m.name, [(s.labels, s.value) for s in m.samples]) for m in _paged(
    ...     {"held": 3, "free": 1, "waiting": 2, "longest_wait": 1.5, "clients": 2})][:2]
    [('landing_match_page_slots', [({'state': 'held'}, 3), ({'state': 'free'}, 1)]), ('landing_match_page_waiting', [({}, 2)])]
    """
    slots = GaugeMetricFamily("landing_match_page_slots", "Page slots, held or free", labels=["state"])
    slots.add_metric(["held"], pages["held"])
    slots.add_metric(["free"], pages["free"])
    yield slots
    yield GaugeMetricFamily("landing_match_page_waiting", "Inputs waiting for a page slot", value=pages["waiting"])
    yield GaugeMetricFamily(
        "landing_match_page_wait_seconds",
        "How long the input waiting longest for a page slot has waited",
        value=pages["longest_wait"],
    )
    yield GaugeMetricFamily(
        "landing_match_page_clients", "Clients holding or waiting for page slots", value=pages["clients"]
    )


def _consumed(stats, held: int):
    """The stream consumer's counters (landing.serve.stream: read, answered, written, claimed...) as metric families.

    >>> [(m.name, [(s.labels, s.value) for s in m.samples]) for m in _consumed({"read": 3, "written": 2}, 1)]
    [('landing_stream_entries', [({'outcome': 'read'}, 3), ({'outcome': 'written'}, 2)]), \
('landing_stream_entries_held', [({}, 1)])]
    """
    entries = CounterMetricFamily(
        "landing_stream_entries", "Stream entries, by what became of them", labels=["outcome"]
    )
    for outcome, n in sorted(stats.items()):
        entries.add_metric([outcome], n)
    yield entries
    yield GaugeMetricFamily("landing_stream_entries_held", "Stream entries being answered", value=held)


def health(state: str, stats: dict, holder, wait_bound: float) -> dict:
    """GET /healthz's body: the service's `state` (ok, starting, draining), `degraded` with why while an input has
    waited for a page slot longer than `wait_bound` seconds; the Matcher's `stats`, the artifact `holder`'s version."""
    pages = stats.get("pages") or {"total": 0, "held": 0, "waiting": 0, "longest_wait": 0.0}
    why = saturation(pages["longest_wait"], wait_bound) if state == "ok" else None
    return {
        "status": "degraded" if why else state,
        "artifact": holder.version,
        "artifact_loaded": holder.loaded,
        "artifact_reloads": holder.reloads,
        "inputs": stats["inputs"],
        "in_flight": stats["in_flight"],
        "page_slots": pages["total"],
        "page_slots_held": pages["held"],
        "waiting": pages["waiting"],
        "longest_wait": round(pages["longest_wait"], 3),
        **({"why": why} if why else {}),
    }
