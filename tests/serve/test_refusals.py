"""Malformed requests and lines through the real service in this process (landing.serve.http, its fast path and
aiohttp): each one refused with its own error and one log line saying the status and the reason, never a traceback,
and every other line of a POST answered."""

import asyncio
import json
import logging
import sys

import pytest

from landing.commands.match import read_inputs
from landing.serve.refusals import RefusalLog
from tests.serve.test_fast_path import Served, get, read_response, run

GOOD = b'"10.1234/known"'
DEEP = b"[" * 3000 + b"]" * 3000


def post(body: bytes, query: str = "?fetch=none", header: str = "") -> bytes:
    length = "" if "chunked" in header else f"Content-Length: {len(body)}\r\n"
    head = f"POST /match{query} HTTP/1.1\r\nHost: test\r\n{length}{header and header + chr(13) + chr(10)}"
    return (head + "Connection: close\r\n\r\n").encode() + body


def asked(tmp_path, raw: bytes) -> tuple[int, bytes]:
    """(status, body) of the one request `raw`, sent on a connection of its own."""

    async def scenario():
        async with Served(tmp_path) as served:
            reader, writer = await served.connect()
            writer.write(raw)
            status, _, body = await read_response(reader)
            writer.close()
            return status, body

    return run(scenario())


def logged(caplog) -> list[str]:
    assert "Traceback" not in caplog.text
    assert [record for record in caplog.records if record.exc_info] == []
    mine = [record for record in caplog.records if record.name == "tests.serve.fast" and record.levelno >= logging.INFO]
    return [record.getMessage() for record in mine]


def test_each_malformed_post_line_gets_its_own_error_and_one_log_line_and_every_other_line_its_answer(tmp_path, caplog):
    lines = [GOOD, b'"\\ud800"', DEEP, b"\xff\xfe\xfd", b"42", b'{"q": "10.1234/known", "fetch": ["none"]}', GOOD]
    caplog.set_level(logging.INFO)
    status, body = asked(tmp_path, post(b"\n".join(lines) + b"\n"))
    answers = [json.loads(line) for line in body.splitlines()]
    assert (status, [(answer.get("doi"), answer.get("status"), answer.get("line")) for answer in answers]) == (
        200,
        [("10.1234/known", None, None), *[(None, 400, n) for n in range(2, 7)], ("10.1234/known", None, None)],
    )
    assert [line.split(":")[0] for line in logged(caplog)] == [
        f"refused line {n} of a POST /match" for n in range(2, 7)
    ]


def test_a_post_line_echoing_a_lone_surrogate_cannot_break_the_answer_of_the_others(tmp_path, caplog):
    lines = [GOOD, b'{"q": "10.1234/known", "format": "event", "subj": "https://blog.example.org/\\udfff"}', GOOD]
    caplog.set_level(logging.INFO)
    status, body = asked(tmp_path, post(b"\n".join(lines)))
    answers = [json.loads(line) for line in body.splitlines()]
    assert (status, [answer.get("status") for answer in answers], len(logged(caplog))) == (200, [None, 400, None], 1)


def test_a_line_of_invalid_utf8_is_read_as_get_and_scrapy_match_read_the_same_bytes(tmp_path):
    _, by_post = asked(tmp_path, post(b'"\xff10.1234/known"\n'))
    _, by_get = asked(tmp_path, get("/match?q=%FF10.1234/known&fetch=none", "Connection: close"))
    by_match = read_inputs([b"\xff10.1234/known\n"])[0]
    assert [json.loads(by_post)["input"], json.loads(by_get)["input"], *by_match] == ["\ufffd10.1234/known"] * 3


def test_a_get_whose_q_starts_with_a_byte_order_mark_is_read_without_it(tmp_path):
    _, body = asked(tmp_path, get("/match?q=%EF%BB%BF10.1234/known&fetch=none", "Connection: close"))
    assert json.loads(body)["input"] == "10.1234/known"


@pytest.mark.parametrize(
    ("raw", "reason"),
    [
        (b"GET /match?q=10.1234/known HTTP/1.1\r\nHost: test\r\nno colon here\r\n\r\n", "Invalid header token"),
        (b"GET /match?q=\xff10.1234/known HTTP/1.1\r\nHost: test\r\n\r\n", "Invalid char in url query"),
        (b"GET /match?q=10.1234/known HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", "Duplicate 'Host' header found"),
        (b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03\r\n\r\n", "Received HTTPS traffic on an HTTP port"),
        (get("/match?q=%20&fetch=none"), "give q: a URL, a DOI or free text (GET /match?q=...)"),
        (get("/match?q=10.1234/known&fetch=some"), "fetch='some': use none, known, all"),
        (post(b""), 'give JSON lines: each a string, or {"q": ..., "fetch": ...}'),
        (post(GOOD, "?format=xml"), "format='xml': use flat or event"),
        (post(b"zz\r\n", "?fetch=none", "Transfer-Encoding: chunked"), "Invalid character in chunk size"),
        (post(b"abcde", "?fetch=none", "Content-Encoding: gzip"), "the body cannot be read: Can not decode"),
        (post(b"abcde", "?fetch=none", "Content-Length: 6"), "Duplicate Content-Length"),
    ],
    ids=[
        "bad header",
        "raw byte in target",
        "two hosts",
        "tls hello",
        "blank q",
        "bad fetch",
        "no lines",
        "bad format",
        "bad chunk",
        "bad gzip",
        "two lengths",
    ],
)
def test_a_malformed_request_is_refused_with_400_and_one_log_line_naming_the_reason(tmp_path, caplog, raw, reason):
    caplog.set_level(logging.DEBUG)
    status, _ = asked(tmp_path, raw)
    found = logged(caplog)
    assert (status, len(found), found[0].startswith("refused "), found[0].split(": 400 ", 1)[1][: len(reason)]) == (
        400,
        1,
        True,
        reason,
    )


def test_a_request_target_too_long_is_refused_with_414_and_one_log_line(tmp_path, caplog):
    caplog.set_level(logging.DEBUG)
    status, _ = asked(tmp_path, b"GET /match?q=" + b"x" * 20000 + b" HTTP/1.1\r\nHost: test\r\n\r\n")
    found = logged(caplog)
    assert (status, len(found), found[0].split(": ", 1)[1]) == (414, 1, "414 a request target over 8,190 bytes")


def test_a_fault_aiohttp_reports_with_a_traceback_is_one_error_line_naming_the_exception_and_where(caplog):
    log = RefusalLog(logging.getLogger("tests.serve.fast"))
    caplog.set_level(logging.DEBUG)
    try:
        {}["q"]
    except KeyError:
        log.exception("Unhandled exception", exc_info=sys.exc_info()[1])
    (message,) = logged(caplog)
    assert (caplog.records[0].levelname, message.split(" (at ")[0]) == ("ERROR", "Unhandled exception: KeyError: 'q'")


def test_a_post_answered_after_refused_lines_leaves_no_task_failing_in_the_loop(tmp_path, caplog):
    async def scenario():
        async with Served(tmp_path) as served:
            reader, writer = await served.connect()
            writer.write(post(b"\n".join([DEEP, b'"\\ud800"', GOOD])))
            status, _, body = await read_response(reader)
            writer.close()
            await asyncio.sleep(0)
            return status, len(body.splitlines())

    caplog.set_level(logging.DEBUG)
    assert (run(scenario()), [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]) == ((200, 3), [])


def test_a_logger_method_aiohttp_calls_that_is_not_a_refusal_is_the_service_loggers_own(caplog):
    caplog.set_level(logging.DEBUG)
    RefusalLog(logging.getLogger("tests.serve.fast")).warning("a warning of %s", "aiohttp's")
    assert logged(caplog) == ["a warning of aiohttp's"]


def test_a_client_that_goes_away_before_its_body_is_read_is_counted_gone_with_no_log_line(tmp_path, caplog):
    async def scenario():
        async with Served(tmp_path) as served:
            _, writer = await served.connect()
            writer.write(post(b'"10.1234/known"\n')[:-4])  # the head says 4 bytes more than come
            await writer.drain()
            writer.close()
            while ("/match", "POST", 499) not in served.service.metrics.counts:
                await asyncio.sleep(0.01)  # polling for the count, not waiting out a time

    caplog.set_level(logging.DEBUG)
    run(scenario())
    assert logged(caplog) == []
