"""landing.serve.metrics: the service's registry, read back as Prometheus reads it."""

from prometheus_client.parser import text_string_to_metric_families

from landing.serve.metrics import ServiceMetrics, route_of


class Starting:
    matcher = None  # the service before its Matcher is ready
    streams = None  # and no stream consumer beside it


class Held:
    version, loaded, reloads, failures = "sha256:0123456789abcdef", "2026-11-26T04:00:00Z", 2, 1


def samples(metrics: ServiceMetrics) -> dict:
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(metrics.text().decode())
        for sample in family.samples
    }


def test_a_client_cannot_mint_labels_with_odd_paths_or_methods():
    metrics = ServiceMetrics(Starting(), Held())
    for path, method in (("/a", "BREW"), ("/b", "WHEN"), ("/match", "GET"), ("/match", "GET")):
        metrics.observe(route_of(path), method, 404 if path != "/match" else 200, 0.001)
    counted = {labels: n for (name, labels), n in samples(metrics).items() if name == "landing_serve_requests_total"}
    assert counted == {
        (("method", "other"), ("route", "other"), ("status", "404")): 2,
        (("method", "GET"), ("route", "/match"), ("status", "200")): 2,
    }


def test_request_latencies_fall_in_the_buckets_of_their_bounds_and_in_flight_is_the_services_count():
    service = Starting()
    service.in_flight = 3
    metrics = ServiceMetrics(service, Held())
    for seconds in (0.0005, 0.001, 0.02, 700):
        metrics.observe("/match", "GET", 200, seconds)
    found = samples(metrics)
    bucket = {
        dict(labels)["le"]: n
        for (name, labels), n in found.items()
        if name == "landing_serve_request_seconds_bucket" and dict(labels)["route"] == "/match"
    }
    assert (bucket["0.001"], bucket["0.025"], bucket["600.0"], bucket["+Inf"]) == (2, 3, 3, 4)
    assert found[("landing_serve_request_seconds_sum", (("route", "/match"),))] == 0.0005 + 0.001 + 0.02 + 700
    assert found[("landing_serve_requests_in_flight", ())] == 3


def test_while_starting_the_artifact_is_named_and_no_input_is_counted():
    found = samples(ServiceMetrics(Starting(), Held()))
    assert not any(name.startswith("landing_match_") for name, _ in found)
    assert found[("landing_artifact_info", (("loaded", Held.loaded), ("version", Held.version)))] == 1
    assert (found[("landing_artifact_reloads_total", ())], found[("landing_artifact_unreadable_total", ())]) == (2, 1)


def test_a_stream_consumer_beside_the_routes_has_its_entries_counted_by_outcome():
    class Consumer:
        stats, held = {"read": 7, "answered": 5, "written": 5, "claimed": 2}, {"1-0": None}

    class Streams:
        consumer = Consumer()

    service = Starting()
    service.streams = Streams()
    found = samples(ServiceMetrics(service, Held()))
    counted = {labels: n for (name, labels), n in found.items() if name == "landing_stream_entries_total"}
    assert counted == {
        (("outcome", "answered"),): 5,
        (("outcome", "claimed"),): 2,
        (("outcome", "read"),): 7,
        (("outcome", "written"),): 5,
    }
    assert found[("landing_stream_entries_held", ())] == 1


def test_without_a_stream_consumer_no_stream_metric_is_shown():
    assert not any(name.startswith("landing_stream_") for name, _ in samples(ServiceMetrics(Starting(), Held())))
