"""What one input may cost `scrapy match` (issue 29), as a user meets it: a malformed URL answered at once, caps on
the pieces, requests and evidence of one input, a deadline, and a first SIGTERM or Ctrl-C that stops the run within
seconds, printing what it has."""

import json
import signal
import socket
import subprocess
import sys
import threading
from contextlib import contextmanager

import pytest

from landing_dev.sandbox.server import RunningSandbox
from tests import forked
from tests.sampler.crawling import PROJECT, Stores

KNOWN = [f"10.99003/w{n}" for n in range(3)]  # registered; 10.99003/u<n> are not


def _lines(done) -> list[dict]:
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr[-3000:]
    return [json.loads(line) for line in done.stdout.splitlines()]


def _steps(result: dict) -> list[list]:
    return [[e["step"], e["outcome"]] for e in result["evidence"]]


@pytest.fixture(scope="module")
def sandbox(tmp_path_factory):
    world = tmp_path_factory.mktemp("limits")
    (world / "world.json").write_text(
        json.dumps(
            {
                "format": "landing-sandbox/1",
                "members": [{"id": "1", "primary-name": "Limit Press", "prefixes": ["10.99003"]}],
            }
        )
    )
    records = [{"doi": d, "ra": "crossref", "member": "1", "url": f"https://limits.example/{d}"} for d in KNOWN]
    (world / "dois.jsonl").write_text("".join(json.dumps(record) + "\n" for record in records))
    running = RunningSandbox(world)
    yield running
    running.close()


def _match(tmp_path, sandbox, *inputs, settings=()):
    overrides = ["-s", f"LANDING_SANDBOX={sandbox.proxy}", "-s", "TELNETCONSOLE_ENABLED=False"]
    for setting in settings:
        overrides += ["-s", setting]
    return _lines(Stores(tmp_path).scrapy("match", "--no-fetch", *inputs, overrides=overrides, timeout=120))


def test_a_url_naming_no_host_is_answered_malformed_with_no_request_and_no_error_on_the_terminal(tmp_path, sandbox):
    overrides = ["-s", f"LANDING_SANDBOX={sandbox.proxy}", "-s", "TELNETCONSOLE_ENABLED=False"]
    long = "https://limits.example/" + "a" * 9_000
    # --fetch-all: no artifact names limits.example, and the long URL is refused only when a fetch is asked for.
    inputs = ["https://", "http://[::1/x", long]
    done = Stores(tmp_path).scrapy("match", "--fetch-all", *inputs, overrides=overrides, timeout=120)
    results = _lines(done)
    assert [r["evidence"] for r in results] == [
        [{"step": "malformed-url", "candidate": "https://", "outcome": "no host", "requests": 0}],
        [{"step": "malformed-url", "candidate": "http://[::1/x", "outcome": "invalid URL", "requests": 0}],
        [{"step": "fetch", "candidate": long, "outcome": "url-too-long", "requests": 0}],
    ]
    assert ("ERROR" in done.stderr, "CRITICAL" in done.stderr) == (False, False)


def test_free_text_holding_thirty_dois_matches_only_the_first_pieces_and_counts_the_rest(tmp_path, sandbox):
    text = " ".join(KNOWN + [f"10.99003/u{n}" for n in range(27)])
    (result,) = _match(tmp_path, sandbox, text, settings=["TUNING_MATCH_PIECES=5"])
    assert [m["doi"] for m in result["matches"]] == KNOWN
    assert sum(e["requests"] for e in result["evidence"]) == 5
    assert _steps(result)[-2:] == [["pieces-cap", "only the first 5 matched"], ["artifact", "none"]]


def test_an_input_stops_asking_once_it_made_its_requests_and_its_evidence_is_folded_past_its_cap(tmp_path, sandbox):
    text = " ".join(f"10.99003/u{n}" for n in range(10))
    (result,) = _match(tmp_path, sandbox, text, settings=["LANDING_MATCH_REQUESTS=6", "TUNING_MATCH_EVIDENCE=4"])
    assert result["doi"] is None
    assert [step for step, _ in _steps(result)] == ["doi-literal", "evidence-cap", "doi-literal", "request-cap"]
    assert (_steps(result)[1][1], sum(e["requests"] for e in result["evidence"])) == ("4 more attempts not listed", 6)


def test_a_megabyte_line_of_a_doi_and_junk_is_matched_by_the_doi(tmp_path, sandbox):
    source = tmp_path / "line.txt"
    source.write_text("10.99003/w1?x=" + ".pdf" * 250_000 + "\n")
    (result,) = _match(tmp_path, sandbox, "-i", str(source))
    assert (result["doi"], result["method"]) == ("10.99003/w1", "doi-literal")


@contextmanager
def silent_proxy():
    """A listener that accepts connections and never answers; yields (its URL, an Event set once one connected)."""
    listener = socket.create_server(("127.0.0.1", 0))
    connected, held = threading.Event(), []

    def accept():
        while True:
            try:
                held.append(listener.accept()[0])
            except OSError:  # closed
                return
            connected.set()

    threading.Thread(target=accept, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}", connected
    finally:
        listener.close()
        for connection in held:
            connection.close()


# Long enough that only the matcher's own limits can end what the silent proxy holds.
PATIENT = ["-s", "DOWNLOAD_TIMEOUT=600", "-s", "RETRY_TIMES=0", "-s", "TELNETCONSOLE_ENABLED=False"]


def test_an_input_with_no_answer_gets_the_deadline_outcome(tmp_path):
    with silent_proxy() as (proxy, _):
        done = Stores(tmp_path).scrapy(
            "match",
            "10.99003/w0",
            overrides=["-s", f"LANDING_SANDBOX={proxy}", "-s", "LANDING_MATCH_DEADLINE=2", *PATIENT],
            timeout=90,
        )
    (result,) = _lines(done)
    assert (result["doi"], _steps(result)) == (None, [["deadline", "no answer within 2 s"]])


@pytest.mark.parametrize(("signum", "name"), [(signal.SIGTERM, "SIGTERM"), (signal.SIGINT, "SIGINT")])
def test_a_first_signal_stops_the_run_within_seconds_printing_every_result_it_has(tmp_path, signum, name):
    inputs = ["no identifier here", "10.99003/w0", "nothing here either"]
    with silent_proxy() as (proxy, connected):
        stores = Stores(tmp_path)
        command = [
            sys.executable,
            "-m",
            "scrapy",
            "match",
            *inputs,
            *stores.settings(),
            "-s",
            f"LANDING_SANDBOX={proxy}",
        ]
        process = forked.popen(
            command + PATIENT, cwd=PROJECT, env=stores.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        try:
            first = process.stdout.readline()  # the first input needs no request: printed at once
            assert connected.wait(60), "the second input never asked"
            process.send_signal(signum)
            out, err = process.communicate(timeout=30)
        finally:
            process.kill()
    results = [json.loads(line) for line in [first, *out.splitlines()]]
    assert (process.returncode, [r["input"] for r in results]) == (128 + signum, [inputs[0], inputs[2]])
    assert f"1 stopped by {name}" in err and "Traceback" not in err
