"""`scrapy match` refuses bad settings up front, as `scrapy crawl` does, and prints every result it has, in order."""

import argparse
import json

import pytest
from scrapy.exceptions import UsageError
from scrapy.settings import Settings

import landing.settings
from landing.commands.match import Command, _Printer, read_inputs
from landing.core.matching.cascade import NOT_FETCHED
from landing_dev.sandbox.server import RunningSandbox
from tests.sampler.crawling import Stores

GATED = "https://unlisted.example/paper/1"  # a page on a host the artifact does not list


def test_a_bad_setting_is_named_with_exit_code_2_and_no_traceback(tmp_path):
    done = Stores(tmp_path).scrapy(
        "match",
        "https://example.org/article/1",
        overrides=["-s", "LANDING_RESOLVER_ROBOTS=maybe", "-s", "TUNING_MATCH_CONCURRENCY=many"],
    )
    assert done.returncode == 2
    assert "LANDING_RESOLVER_ROBOTS='maybe': use ignore or obey" in done.stderr
    assert "TUNING_MATCH_CONCURRENCY='many' is not a number" in done.stderr
    assert "Traceback" not in done.stderr


def _printed(capsys, numbers, total, quiet=False):
    printer = _Printer(total, quiet)
    for number in numbers:
        printer.scraped({"number": number, "input": str(number)})
    held = len(printer.results)
    printer.finish()
    out, err = capsys.readouterr()
    return [json.loads(line)["input"] for line in out.splitlines()], held, err


def test_results_are_printed_in_input_order_and_forgotten_once_printed(capsys):
    printed, held, _ = _printed(capsys, [1, 0, 2], 3)
    assert (printed, held) == (["0", "1", "2"], 0)


def test_results_behind_an_input_that_never_finished_are_printed_at_the_end_not_withheld(capsys):
    printed, held, err = _printed(capsys, [0, 2, 3], 4)
    assert (printed, held) == (["0", "2", "3"], 2)
    assert "1 lost" in err


def test_an_evaluation_keeps_every_result_and_prints_none(capsys):
    printed, held, _ = _printed(capsys, [0, 1], 2, quiet=True)
    assert (printed, held) == ([], 2)


def test_inputs_that_are_not_utf8_are_read_with_replacement_and_their_lines_named():
    lines = ["\ufeffhttps://example.org/a\n".encode(), b"\n", b"https://example.org/caf\xe9\n", "10.1234/é\n".encode()]
    assert read_inputs(lines) == (["https://example.org/a", "https://example.org/caf\ufffd", "10.1234/é"], [3])


def test_a_line_opening_with_a_utf16_byte_order_mark_is_read_as_utf8_with_replacement_not_as_utf16():
    assert read_inputs([b"\xff\xfe1\x000\x00\n", "\ufeff10.1234/x\n".encode()]) == (
        ["\ufffd\ufffd1\x000\x00", "10.1234/x"],
        [1],
    )


def test_a_latin1_input_file_is_matched_line_by_line_and_said_not_a_traceback(tmp_path):
    inputs = tmp_path / "latin1.txt"
    inputs.write_bytes(b"https://example.org/caf\xe9\n10.1234/abc\n")
    done = Stores(tmp_path).scrapy(
        "match",
        "-i",
        str(inputs),
        "--no-fetch",
        overrides=["-s", "LANDING_SANDBOX=http://127.0.0.1:9", "-s", "RETRY_TIMES=0"],
    )
    assert (done.returncode, "Traceback" in done.stderr, len(done.stdout.splitlines())) == (0, False, 2)
    assert "latin1.txt: 1 line(s) not UTF-8 (first: line 1)" in done.stderr


def _options(*argv):
    """`scrapy match`'s settings after its options `argv` are read, as Scrapy's command line reads them."""
    command, parser = Command(), argparse.ArgumentParser()
    command.settings = Settings()
    command.settings.setmodule(landing.settings, priority="project")
    command.add_options(parser)
    opts = parser.parse_args(list(argv))
    command.process_options([], opts)
    return command.settings


def test_fetch_all_lifts_the_domain_gate_for_the_run():
    assert (_options("--fetch-all")["LANDING_MATCH_FETCH"], _options()["LANDING_MATCH_FETCH"]) == (
        "all",
        "known",
    )


def test_fetch_all_with_no_fetch_is_a_usage_error_in_words():
    with pytest.raises(UsageError, match="--fetch-all and --no-fetch contradict each other"):
        _options("--fetch-all", "--no-fetch")


def test_evaluate_alone_scores_the_store_and_with_a_file_scores_the_file():
    command, parser = Command(), argparse.ArgumentParser()
    command.settings = Settings()
    command.add_options(parser)
    assert (parser.parse_args(["--evaluate"]).evaluate, parser.parse_args(["--evaluate", "dev.jsonl"]).evaluate) == (
        True,
        "dev.jsonl",
    )


def test_a_labelled_file_that_cannot_be_read_is_a_usage_error_naming_it(tmp_path):
    (tmp_path / "dev.jsonl").write_text("not json\n")
    with pytest.raises(UsageError, match="dev.jsonl:1: not JSON"):
        Command()._from_file(str(tmp_path / "dev.jsonl"))


def test_a_citing_page_without_format_event_is_a_usage_error_in_words():
    with pytest.raises(UsageError, match="--subj names the citing page of Events: give --format event"):
        _options("--subj", "https://blog.example.org/post")


def test_an_evaluation_asked_for_events_is_a_usage_error_in_words():
    with pytest.raises(UsageError, match="--evaluate prints a table, not results: give no --format event"):
        _options("--evaluate", "--format", "event")


def test_a_citing_page_that_is_not_an_http_url_is_a_usage_error_in_words():
    with pytest.raises(UsageError, match="--subj='blog.example.org/post': give the citing page's http"):
        _options("--format", "event", "--subj", "blog.example.org/post")


def test_the_printer_prints_each_result_as_its_shape_says_in_input_order(capsys):
    printer = _Printer(2, shape=lambda result: {"shaped": result["input"]})
    for number in (1, 0):
        printer.scraped({"number": number, "input": str(number)})
    printer.finish()
    assert [json.loads(line) for line in capsys.readouterr().out.splitlines()] == [{"shaped": "0"}, {"shaped": "1"}]


@pytest.fixture(scope="module")
def gate(tmp_path_factory):
    """`scrapy match GATED` with an artifact that lists another host, through a sandbox of its own, under the default
    policy and then with --fetch-all: {"known" | "all": (its result, the sandbox's request log lines of that run)}."""
    world = tmp_path_factory.mktemp("gate")
    member = {"id": "1", "primary-name": "Gate Press", "prefixes": ["10.99005"]}
    (world / "world.json").write_text(json.dumps({"format": "landing-sandbox/1", "members": [member]}))
    (world / "dois.jsonl").write_text("")
    (world / "routes.jsonl").write_text(json.dumps({"url": GATED, "body": "<html><title>A post</title></html>"}) + "\n")
    artifact = world / "decisions.json"
    cell = {"domain-recognised": True, "domain-confirmed": True}
    artifact.write_text(json.dumps({"domains-prefixes": {"listed.example": {"10.99005": cell}}}))
    requests = []
    sandbox = RunningSandbox(world, log=requests.append)
    runs = {}
    try:
        for policy, options in (("known", []), ("all", ["--fetch-all"])):
            start = len(requests)
            # No robots.txt: the page is the one request --fetch-all makes, with no host's pause before it.
            overrides = ["-s", f"LANDING_SANDBOX={sandbox.proxy}", "-s", "ROBOTSTXT_OBEY=False"]
            done = Stores(tmp_path_factory.mktemp(policy)).scrapy(
                "match", "--artifact", str(artifact), *options, GATED, overrides=overrides
            )
            assert done.returncode == 0, done.stderr[-3000:]
            runs[policy] = (json.loads(done.stdout), requests[start:])
    finally:
        sandbox.close()
    return runs


def test_a_url_on_a_host_the_artifact_does_not_list_makes_no_request_and_its_evidence_says_so(gate):
    result, requests = gate["known"]
    assert (requests, result["doi"], result["evidence"]) == (
        [],
        None,
        [{"step": "fetch", "candidate": GATED, "outcome": NOT_FETCHED, "requests": 0}],
    )


def test_fetch_all_fetches_the_same_url(gate):
    result, requests = gate["all"]
    assert (requests, result["evidence"][-1]["outcome"]) == ([f"GET {GATED} -> 200"], f"200 {GATED}")
