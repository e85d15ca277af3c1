"""landing.match.api from code: match() any number of times in one process, amatch() from asyncio programs, each with
the same results as `scrapy match` (the programs: tests/match/api_probe.py, each in a process of its own)."""

import asyncio
import json
import subprocess
import sys

import pytest

from landing.match.api import amatch, match, policy
from landing_dev.runner import scrapy_command
from tests import forked
from tests.match.api_probe import SETTINGS
from tests.sampler.crawling import PROJECT, truth_of


def _page(truth, skip=()):
    """A reached page whose URL holds neither its DOI nor a PII: only its fetched page names its DOI."""
    return next(
        (doi, t["final_url"])
        for doi, t in truth.items()
        if t["scenario"] == "direct"
        and not t["error"]
        and doi not in t["final_url"].lower()
        and "/pii/" not in t["final_url"]
        and doi not in skip
    )


@pytest.fixture(scope="module")
def inputs(match_world):
    """A page to fetch, a DOI literal, an unknown DOI, no URL at all, and free text holding a page's URL and a DOI;
    the pages are fetched with fetch "all" only: no artifact knows their domains."""
    truth = truth_of(match_world)
    doi, url = _page(truth)
    other, other_url = _page(truth, skip={doi})
    return [url, f"doi:{other}", "10.99999/unknown", "not a url", f"As seen at {other_url}, and https://doi.org/{doi}."]


@pytest.fixture(scope="module")
def runs(match_sandbox, inputs):
    """Every program and `scrapy match` run on the inputs through the match sandbox, at once: {name: stdout lines}."""
    settings = {**SETTINGS, "LANDING_SANDBOX": match_sandbox.proxy}
    commands = {
        name: [sys.executable, "-m", "tests.match.api_probe", name, match_sandbox.proxy, *inputs]
        for name in ("three", "interrupted", "awaited", "foreign")
    }
    commands["scrapy match"] = scrapy_command("match", *inputs, settings=settings)
    commands["scrapy match --fetch-all"] = scrapy_command("match", "--fetch-all", *inputs, settings=settings)
    started = {
        name: forked.popen(command, cwd=PROJECT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for name, command in commands.items()
    }
    done = {}
    for name, process in started.items():
        out, err = process.communicate(timeout=120)
        assert process.returncode == 0, f"{name}: {err[-3000:]}"
        done[name] = [json.loads(line) for line in out.splitlines()]
    return done


@pytest.fixture(scope="module")
def expected(runs):
    """`scrapy match`'s answers, one per input."""
    return runs["scrapy match"]


def test_match_answers_each_input_in_order(runs, inputs):
    first = runs["three"][0]
    assert [r["input"] for r in first] == inputs
    assert [(r["doi"], r["method"]) for r in first[1:4]] == [
        (inputs[1].removeprefix("doi:"), "doi-literal"),
        (None, None),
        (None, None),
    ]


def test_match_answers_as_scrapy_match_does(runs, expected):
    assert runs["three"][0] == expected


def test_match_called_again_from_two_threads_at_once_answers_each_as_scrapy_match(runs, expected):
    assert runs["three"][2] == [expected, expected]


def test_match_with_fetch_all_answers_as_scrapy_match_fetch_all(runs):
    fetched_all = runs["three"][1]
    assert fetched_all == runs["scrapy match --fetch-all"]
    assert fetched_all[4]["matches"] != runs["scrapy match"][4]["matches"]  # the policy reached the free text


def test_amatch_from_asyncio_run_answers_as_scrapy_match_each_time(runs, expected):
    awaited = runs["awaited"]
    assert (awaited[0], awaited[-1]) == (expected, expected)


def test_amatch_leaves_the_callers_loop_running_while_it_crawls(runs):
    # Every request of the second call went through a relay on the caller's loop: blocked, it would never finish.
    assert runs["awaited"][1]["relayed"] >= 1
    assert runs["awaited"][1]["ticks"] >= 1


def test_cancelling_amatch_stops_its_crawl_and_the_next_call_answers(runs, expected):
    assert runs["awaited"][2:] == ["cancelled", {"dropped": True}, expected]


def test_ctrl_c_interrupts_match_its_crawl_drops_its_requests_and_the_next_call_answers(runs, expected):
    assert runs["interrupted"] == ["interrupted", {"dropped": True}, expected]


def test_match_in_a_process_with_its_own_reactor_says_what_to_do_instead(runs):
    said = runs["foreign"][0]
    assert said.startswith("this process already installed a Twisted reactor (")
    assert "await landing.match.api.amatch()" in said and "`scrapy match`" in said


def test_amatch_on_a_crawlers_own_reactor_loop_answers_as_scrapy_match(runs, expected):
    assert runs["foreign"][1] == expected


def test_fetch_takes_true_false_or_a_policy_name():
    assert [policy(f) for f in (True, False, "none", "known", "all")] == [None, "none", "none", "known", "all"]
    with pytest.raises(ValueError, match=r"fetch='some': use True, False, or one of none, known, all"):
        policy("some")


# The calls below fail their checks before any reactor is asked for: they run in the test runner's own process.
def test_one_string_instead_of_a_list_of_inputs_is_refused_before_any_crawl():
    with pytest.raises(TypeError, match=r"inputs: a list of strings, not one string \(match\(\[text\]\) matches one\)"):
        match("https://example.org/article/1")


def test_an_input_that_is_not_a_string_is_named_by_its_index():
    with pytest.raises(TypeError, match=r"^inputs\[1\] is int, not a string: every input is a string$"):
        asyncio.run(amatch(["10.1234/abc", 42]))


def test_an_unknown_fetch_policy_is_refused_before_any_crawl():
    with pytest.raises(ValueError, match=r"^fetch='some': use True, False, or one of none, known, all$"):
        match(["10.1234/abc"], fetch="some")
