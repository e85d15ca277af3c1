"""`scrapy serve`: one service process on the match world's crawl (its artifact copied, so that a new version can be
written under it), through a sandbox where a few pages answer slowly; many HTTP checks against it, the answers
compared with `scrapy match -i` on the same inputs; SIGTERM last."""

import json
import os
import re
import shutil
import signal
import threading
import urllib.error
from concurrent.futures import ThreadPoolExecutor
from importlib.resources import files
from urllib.parse import quote

import jsonschema
import pytest
from openapi_spec_validator import validate
from prometheus_client.parser import text_string_to_metric_families

from landing.core.matching.cascade import NOT_FETCHED
from landing.core.matching.decisions import Decisions
from landing.core.matching.events import event_line
from landing.core.publishing.artifact_format import DECISIONS_JSON
from landing_dev.sandbox.server import RunningSandbox
from tests.serve.serving import (
    Served,
    blocked_lines,
    get,
    held_and_waiting,
    in_flight,
    left_open,
    match,
    metric,
    picked_inputs,
    posted,
    request,
    routed_world,
    wait_until,
)

CITING = "https://blog.example.org/post/7?utm_source=rss"  # a citing page, for Event-shaped answers
SLOW_MS = 1000  # a slow page's delay: long enough to act while its input is answered, short for the suite
MAX_INPUT, MAX_BODY, PER_CLIENT = 5000, 100_000, 2
UNLISTED = "https://unlisted.example/post/1"  # a page the sandbox serves on a host the artifact does not list
# Pages that answer long after any test ends (held, not timed: an input asking one holds its page slot until its client
# goes), each on a host of its own, on no host the artifact lists (fetched with fetch=all).
BLOCKED = [f"https://blocked-{n}.example/page" for n in range(6)]
BLOCKED_MS = 600_000
# Page slots: one client holds at most 3 of them (a quarter kept for the next client), and an input waiting for one
# at all makes /healthz say degraded.
PAGE_SLOTS, PER_CLIENT_SLOTS = 4, 3
OTHER_CLIENT = "127.0.0.2"  # a second client: its own peer address, on the loopback the service listens on


@pytest.fixture(scope="module")
def picked(match_world) -> dict:
    return picked_inputs(match_world)


@pytest.fixture(scope="module")
def sandbox(match_world, picked, tmp_path_factory):
    """The match world with the picked slow pages answering after SLOW_MS, and UNLISTED; `requests` lists every
    request it answered ("GET url -> status")."""
    world = tmp_path_factory.mktemp("slow-match") / "world"
    added = [{"url": UNLISTED, "body": "<html><title>A post</title></html>"}]
    added += [{"url": url, "body": "<html></html>", "delay_ms": BLOCKED_MS} for url in BLOCKED]
    assert routed_world(match_world, world, set(picked["slow"]), SLOW_MS, added) == len(picked["slow"]) == 4
    requests = []
    running = RunningSandbox(world, log=requests.append)
    running.requests = requests
    yield running
    running.close()


@pytest.fixture(scope="module")
def artifact(match_crawl, tmp_path_factory):
    """A copy of the crawl's artifact, which the reload test replaces."""
    stores, _ = match_crawl
    path = tmp_path_factory.mktemp("serve-artifact") / DECISIONS_JSON
    shutil.copyfile(stores.artifacts / DECISIONS_JSON, path)
    return path


@pytest.fixture(scope="module")
def service(match_crawl, sandbox, artifact):
    stores, _ = match_crawl
    limits = {
        "LANDING_SANDBOX": sandbox.proxy,
        "TUNING_SERVE_ARTIFACT_SECONDS": 0.1,
        "LANDING_SERVE_CLIENT_CONCURRENCY": PER_CLIENT,
        "LANDING_SERVE_MAX_INPUT": MAX_INPUT,
        "LANDING_SERVE_MAX_BODY": MAX_BODY,
        "TUNING_MATCH_CONCURRENCY": PAGE_SLOTS,
        "TUNING_SERVE_SLOT_WAIT_SECONDS": 0,
    }
    settings = [arg for name, value in limits.items() for arg in ("-s", f"{name}={value}")]
    started = Served(["--artifact", str(artifact), *stores.settings(), *settings], stores.env)
    yield started
    started.close()


def _matched(match_crawl, sandbox, artifact, picked, tmp_path_factory, *argv: str) -> list[dict]:
    """`scrapy match -i` on the picked inputs, with `argv` besides: its lines."""
    stores, _ = match_crawl
    inputs = tmp_path_factory.mktemp("serve-inputs") / "inputs.txt"
    inputs.write_text("".join(q + "\n" for q in picked["inputs"]))
    argv = ("-i", str(inputs), "--artifact", str(artifact), *argv)
    done = stores.scrapy("match", *argv, overrides=["-s", f"LANDING_SANDBOX={sandbox.proxy}"])
    assert done.returncode == 0, done.stderr[-3000:]
    return [json.loads(line) for line in done.stdout.splitlines()]


@pytest.fixture(scope="module")
def printed(service, match_crawl, sandbox, artifact, picked, tmp_path_factory):
    """`scrapy match -i` on the picked inputs, run while the service starts (the `service` fixture does not wait for
    it): its lines."""
    return _matched(match_crawl, sandbox, artifact, picked, tmp_path_factory)


@pytest.fixture(scope="module")
def url(service):
    return service.wait_serving()


def test_the_service_runs_on_uvloop_and_its_serving_line_says_so(service, url):
    serving = next(line for line in service.lines if "Serving on http://" in line)
    assert serving.rstrip().endswith(", loop uvloop.Loop)")


def test_get_answers_are_exactly_what_scrapy_match_prints_for_the_same_inputs(printed, url, picked):
    assert len(printed) == len(picked["inputs"])
    assert [match(url, q) for q in picked["inputs"]] == [(200, line) for line in printed]


@pytest.fixture(scope="module")
def printed_events(match_crawl, sandbox, artifact, picked, tmp_path_factory):
    """`scrapy match -i --format event --subj CITING` on the picked inputs: its lines."""
    return _matched(match_crawl, sandbox, artifact, picked, tmp_path_factory, "--format", "event", "--subj", CITING)


def _event_lines_valid(lines: list[dict]) -> bool:
    schema = json.loads((files("landing") / "schemas" / "event.schema.json").read_text(encoding="utf-8"))
    for line in lines:
        jsonschema.Draft202012Validator(schema).validate(line)  # raises, naming what is wrong
    return True


def test_scrapy_match_format_event_prints_the_events_of_each_flat_line_valid_against_the_schema(
    printed, printed_events
):
    assert _event_lines_valid(printed_events)
    assert [len(line["events"]) for line in printed_events] == [1, 1, 1, 2, 0, 0]
    assert printed_events == [event_line(line, CITING) for line in printed]


def test_get_and_post_with_format_event_answer_the_events_of_the_flat_answers_valid_against_the_schema(
    url, printed, picked
):
    shaped = f"format=event&subj={quote(CITING, safe='')}"
    gets = [get(f"{url}/match?q={quote(q, safe='')}&{shaped}")[1] for q in picked["inputs"]]
    posts = posted(url, picked["inputs"], path=f"/match?{shaped}").rest()
    expected = [event_line(line, CITING) for line in printed]
    assert (_event_lines_valid(gets), gets, posts) == (True, expected, expected)


def test_a_post_lines_own_format_and_subj_replace_the_requests(url, printed, picked):
    first, second = picked["inputs"][:2]
    lines = [{"q": first, "format": "event", "subj": CITING}, second, {"q": second, "format": "event", "subj": "x"}]
    answer = posted(url, lines).rest()
    assert answer[:2] == [event_line(printed[0], CITING), printed[1]]
    assert (answer[2]["status"], answer[2]["line"]) == (400, 3)


def test_post_answers_every_line_in_input_order_each_written_as_soon_as_it_and_those_before_are_ready(url, picked):
    doi, slow = picked["doi"], picked["slow"][0]
    answer = posted(url, [f"doi:{doi}", {"q": slow}, {"q": doi, "fetch": "none"}])
    first = answer.next()
    still_answering = in_flight(url)  # the slow page's input, while the first line is already out
    rest = answer.rest()
    assert (answer.status, answer.headers["Content-Type"]) == (200, "application/x-ndjson")
    assert (first["input"], first["doi"], still_answering) == (f"doi:{doi}", doi, 1)
    assert [line["input"] for line in rest] == [slow, doi]


def test_post_answers_each_bad_line_with_an_error_naming_it_and_the_others_with_their_results(url, picked):
    doi = picked["doi"]
    lines = [doi, b"{not json", 42, {"q": doi, "fetch": "some"}, {"q": "x" * (MAX_INPUT + 1)}, b"  ", f"doi:{doi}"]
    answer = posted(url, lines)
    got = [(line.get("status"), line.get("line"), line.get("doi")) for line in answer.rest()]
    assert got == [(None, None, doi), (400, 2, None), (400, 3, None), (400, 4, None), (413, 5, None), (None, None, doi)]


@pytest.mark.parametrize(
    ("method", "path", "body", "status"),
    [
        ("GET", "/match", None, 400),
        ("GET", "/match?q=", None, 400),
        ("GET", "/match?q=10.1234/x&fetch=some", None, 400),
        ("GET", f"/match?q={'x' * (MAX_INPUT + 1)}", None, 413),
        ("GET", "/match?q=10.1234/x&format=xml", None, 400),
        ("GET", "/match?q=10.1234/x&subj=https://blog.example.org/", None, 400),  # a citing page needs format=event
        ("GET", "/match?q=10.1234/x&format=event&subj=blog.example.org", None, 400),
        ("POST", "/match", b"", 400),
        ("POST", "/match?fetch=some", b'"10.1234/x"\n', 400),
        ("POST", "/match?format=event&subj=nope", b'"10.1234/x"\n', 400),
        ("POST", "/match", b'"' + b"x" * MAX_BODY + b'"\n', 413),
        ("GET", "/nothing/here", None, 404),
        ("DELETE", "/match", None, 405),
        ("POST", "/healthz", b"{}", 405),
    ],
)
def test_a_request_the_service_cannot_answer_gets_a_json_error_with_its_status(url, method, path, body, status):
    got, answer, _ = request(url + path, method, body)
    assert (got, set(answer), answer["status"], bool(answer["error"])) == (status, {"error", "status"}, status, True)


def test_a_method_not_allowed_names_those_that_are(url):
    assert request(f"{url}/match", "PUT", b"")[2]["Allow"] == "GET,HEAD,POST"


def test_a_client_with_its_limit_of_requests_in_flight_is_refused_with_429_and_those_still_finish(url, picked):
    with ThreadPoolExecutor(PER_CLIENT) as pool:
        slow = [pool.submit(match, url, q) for q in picked["slow"][1:3]]
        wait_until("both slow inputs in flight", lambda: in_flight(url) == PER_CLIENT)
        refused = match(url, f"doi:{picked['doi']}")
        finished = [future.result()[0] for future in slow]
    assert (refused[0], refused[1]["status"], finished) == (429, 429, [200, 200])


def test_healthz_names_the_artifact_version_answers_use_and_when_it_was_loaded(url, artifact):
    status, health, _ = get(f"{url}/healthz")
    version = Decisions.read(artifact.read_text(encoding="utf-8")).version
    assert (status, health["status"], health["artifact"]) == (200, "ok", version)
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", health["artifact_loaded"])


def test_the_service_runs_no_telnet_console(service, url):
    assert "scrapy.extensions.telnet" not in service.log()


def test_the_openapi_document_is_valid_openapi_3(url):
    status, document, _ = get(f"{url}/openapi.json")
    validate(document)  # raises on an invalid document
    assert (status, document["openapi"], sorted(document["paths"])) == (
        200,
        "3.0.3",
        ["/healthz", "/match", "/metrics", "/openapi.json"],
    )


def test_metrics_are_prometheus_text_counting_requests_by_route_and_status_and_inputs_by_answer(url, picked):
    get(f"{url}/nothing")
    match(url, f"doi:{picked['doi']}")
    status, text, headers = get(f"{url}/metrics")
    samples = {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }
    assert (status, headers["Content-Type"].split(";")[0]) == (200, "text/plain")
    assert samples[("landing_serve_requests_total", (("method", "GET"), ("route", "other"), ("status", "404")))] >= 1
    literal = (("method", "doi-literal"), ("verification", "literal"))
    assert samples[("landing_match_inputs_total", literal)] >= 1
    version = get(f"{url}/healthz")[1]["artifact"]
    info = [labels for (name, labels) in samples if name == "landing_artifact_info"]
    assert [dict(labels)["version"] for labels in info] == [version]


def test_a_new_artifact_version_is_picked_up_with_no_failed_request_while_a_client_keeps_asking(url, artifact, picked):
    old = get(f"{url}/healthz")[1]["artifact"]
    text = json.dumps(json.loads(artifact.read_text(encoding="utf-8")))  # the same decisions, another version
    new = Decisions.read(text).version
    asked, stop = [], threading.Event()

    def keep_asking():
        while not stop.is_set():
            status, body = match(url, f"doi:{picked['doi']}")
            asked.append((status, body["evidence"][-1]["outcome"] if status == 200 else body))

    client = threading.Thread(target=keep_asking)
    client.start()
    try:
        wait_until("answers with the old version", lambda: len(asked) >= 3)
        temp = artifact.with_name(".replacing")
        temp.write_text(text, encoding="utf-8")
        os.replace(temp, artifact)  # as the exporter writes a version: never half a file
        wait_until("an answer naming the new version", lambda: any(version == new for _, version in asked))
    finally:
        stop.set()
        client.join(60)
    versions = [version for _, version in asked]
    first_new = versions.index(new)
    assert ({status for status, _ in asked}, set(versions[:first_new]), set(versions[first_new:])) == (
        {200},
        {old},
        {new},
    )
    assert get(f"{url}/healthz")[1]["artifact"] == new


def test_a_url_on_a_host_the_artifact_does_not_list_is_fetched_only_when_asked_fetch_all(url, sandbox):
    def unlisted_requests():
        return [line for line in sandbox.requests if "unlisted.example" in line]

    status, body = match(url, UNLISTED)
    assert (status, unlisted_requests(), body["evidence"]) == (
        200,
        [],
        [{"step": "fetch", "candidate": UNLISTED, "outcome": NOT_FETCHED, "requests": 0}],
    )
    status, _ = match(url, UNLISTED, "all")  # answered once the page came, which the sandbox logs before sending it
    assert (status, f"GET {UNLISTED} -> 200" in unlisted_requests()) == (200, True)


@pytest.fixture
def leaving(url):
    """left_open for the test, every socket closed at its end and every page slot free again before the next test."""
    opened = []

    def leave_open(*args, **kwargs):
        opened.append(left_open(url, *args, **kwargs))
        return opened[-1]

    yield leave_open
    for connection in opened:
        connection.close()
    wait_until("every page slot free", lambda: held_and_waiting(url) == (0, 0))


def test_a_post_whose_client_went_away_has_its_inputs_cancelled_and_their_page_slots_freed(url, leaving):
    gone = {"route": "/match", "method": "POST", "status": "499"}
    before = metric(url, "landing_serve_requests_total", **gone) or 0
    post = leaving("POST", "/match", blocked_lines(BLOCKED[:3]))
    wait_until("three page slots held", lambda: held_and_waiting(url) == (3, 0))
    post.close()
    wait_until("the page slots freed", lambda: held_and_waiting(url) == (0, 0))
    assert metric(url, "landing_serve_requests_total", **gone) == before + 1


def test_a_get_whose_client_went_away_has_its_input_cancelled_and_its_page_slot_freed(url, leaving):
    asked = leaving("GET", f"/match?q={quote(BLOCKED[0], safe='')}&fetch=all")
    wait_until("a page slot held", lambda: held_and_waiting(url) == (1, 0))
    asked.close()
    wait_until("the page slot freed", lambda: held_and_waiting(url) == (0, 0))
    assert metric(url, "landing_match_page_slots", state="free") == PAGE_SLOTS


@pytest.fixture
def saturated(url, leaving):
    """One client holding every page slot it may, with one more page input waiting; a second holding the last."""
    leaving("POST", "/match", blocked_lines(BLOCKED[: PER_CLIENT_SLOTS + 1]))
    wait_until("one client at its share, one input waiting", lambda: held_and_waiting(url) == (PER_CLIENT_SLOTS, 1))
    leaving("GET", f"/match?q={quote(BLOCKED[-1], safe='')}&fetch=all", source=OTHER_CLIENT)
    wait_until("every page slot held", lambda: held_and_waiting(url) == (PAGE_SLOTS, 1))


def test_a_second_clients_page_input_takes_the_slot_the_first_client_may_not_hold(url, saturated):
    assert (metric(url, "landing_match_page_slots", state="held"), metric(url, "landing_match_page_waiting")) == (
        PAGE_SLOTS,
        1,
    )
    assert metric(url, "landing_match_page_clients") == 2


def test_inputs_that_fetch_no_page_are_answered_while_every_page_slot_is_held(url, picked, saturated):
    status, body = match(url, picked["doi"], "none")
    assert (status, body["doi"], body["method"], held_and_waiting(url)) == (
        200,
        picked["doi"],
        "doi-literal",
        (PAGE_SLOTS, 1),
    )


def test_healthz_is_503_degraded_saying_why_while_an_input_waits_for_a_page_slot_past_the_bound(url, saturated):
    status, body, _ = get(f"{url}/healthz")
    assert (status, body["status"], body["waiting"], "for a page slot, over 0 s" in body["why"]) == (
        503,
        "degraded",
        1,
        True,
    )
    assert metric(url, "landing_match_page_wait_seconds") > 0


def test_sigterm_stops_new_connections_lets_a_request_in_flight_finish_and_exits_0(service, url, picked):
    slow = picked["slow"][3]
    with ThreadPoolExecutor(1) as pool:
        answer = pool.submit(match, url, slow)
        wait_until("the slow input in flight", lambda: in_flight(url) == 1)
        service.process.send_signal(signal.SIGTERM)
        service.wait_logged("draining")
        with pytest.raises(urllib.error.URLError):  # connection refused: nothing listens any more
            get(f"{url}/healthz")
        status, body = answer.result()
    assert (status, body["input"]) == (200, slow)
    assert service.process.wait(60) == 0
    service.wait_logged("drained (every request finished)")
