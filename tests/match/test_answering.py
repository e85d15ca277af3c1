"""landing.match.answering.bounded: one input's Result within its deadline, whatever its questions' answers do."""

import asyncio
import logging

import pytest

from landing.core.matching.cascade import Matching, drive
from landing.core.matching.questions import Exists
from landing.core.matching.readings import attempt
from landing.core.matching.results import LookupFailed
from landing.match.answering import bounded, short
from tests.core.matching.cascading import DOI, SETUP

LOG = logging.getLogger("tests.match.answering")


def answering(answer):
    """An async ask: every question gets answer(question) (raised when it is an exception)."""

    async def ask(question):
        found = answer(question)
        if isinstance(found, BaseException):
            raise found
        return found

    return ask


def run(coroutine):
    return asyncio.run(coroutine)


def test_an_answered_input_gets_the_result_the_cascade_returns():
    table = {Exists(DOI): (True, 1)}
    got = run(bounded(Matching(f"doi:{DOI}", SETUP), answering(table.get), 5, LOG))
    assert got == drive(Matching(f"doi:{DOI}", SETUP), table.get)


def test_an_input_whose_answer_never_comes_stops_at_its_deadline_with_what_it_tried():
    async def never(question):
        await asyncio.Event().wait()

    got = run(bounded(Matching(DOI, SETUP), never, 0.01, LOG)).to_json()
    assert (got["doi"], got["evidence"]) == (None, [attempt("deadline", None, "no answer within 0.01 s", 0)])


def test_a_registry_that_does_not_answer_stops_the_input_with_lookup_failed(caplog):
    failed = LookupFailed("Handle API: 503 for 10.1234/abc")
    got = run(bounded(Matching(DOI, SETUP), answering(lambda q: failed), 5, LOG)).to_json()
    assert got["evidence"][-1] == attempt("lookup-failed", None, "Handle API: 503 for 10.1234/abc", 0)
    assert [r.levelname for r in caplog.records] == ["WARNING"]


def test_an_error_while_answering_stops_that_input_with_error_and_one_log_line(caplog):
    got = run(bounded(Matching(DOI, SETUP), answering(lambda q: KeyError("odd")), 5, LOG)).to_json()
    assert got["evidence"][-1] == attempt("error", None, "KeyError: 'odd'", 0)
    assert [(r.levelname, r.getMessage()) for r in caplog.records] == [
        ("ERROR", f"matching {DOI!r} failed: KeyError: 'odd'")
    ]


def test_an_input_whose_work_is_cancelled_by_its_owner_is_dropped_as_none():
    inflight: set = set()

    async def stop_then_answer():
        async def never(question):
            await asyncio.Event().wait()

        answer = asyncio.ensure_future(bounded(Matching(DOI, SETUP), never, 5, LOG, inflight=inflight))
        while not inflight:
            await asyncio.sleep(0)
        for work in inflight:
            work.cancel()  # as a stop does: the work, not the caller
        return await answer

    assert run(stop_then_answer()) is None
    assert inflight == set()


def test_a_caller_that_is_cancelled_is_cancelled_not_answered():
    async def cancel_the_caller():
        async def never(question):
            await asyncio.Event().wait()

        inflight: set = set()
        answer = asyncio.ensure_future(bounded(Matching(DOI, SETUP), never, 5, LOG, inflight=inflight))
        while not inflight:
            await asyncio.sleep(0)
        answer.cancel()
        with pytest.raises(asyncio.CancelledError):
            await answer
        return inflight

    assert run(cancel_the_caller()) == set()


def test_a_long_input_is_named_by_its_start_and_length_in_the_log():
    assert short("x" * 1000) == "x" * 200 + "... (1,000 characters)"
