"""The service's fast path for GET /match (landing.serve.fast_path), in this process: a real Service and Matcher (every
Handle API answer from a table, as bench.service's pure loop has them), asked over raw sockets so that pipelining,
keep-alive, hand-overs to aiohttp and hostile heads can be sent byte for byte."""

import asyncio
import json
import logging

import pytest
from scrapy.settings import Settings

from landing import config
from landing import settings as defaults
from landing.core.matching.questions import Exists
from landing.match.answer_cache import LocalAnswers
from landing.match.answering import Matcher, base_setup
from landing.match.loaded_artifact import ArtifactHolder
from landing.match.lookups import NotHeld
from landing.serve.fast_path import AT_ONCE, FastConnection
from landing.serve.http import Service

REGISTERED = {"10.1234/known", "10.1234/slow"}
MAX_INPUT = 50
DEADLINE = 30  # seconds any read may take before the test fails
logger = logging.getLogger("tests.serve.fast")


class Served:
    """A Service listening on a free port, its Matcher asking the Handle API table (the answers given held from then
    on, as Lookups holds them); `release` lets the input 10.1234/slow's question be answered."""

    def __init__(self, tmp_path, idle: float | None = None, head: float | None = None, body: float | None = None):
        settings = Settings()
        settings.setmodule(defaults)
        settings.set("LANDING_SERVE_MAX_INPUT", MAX_INPUT)
        self.cfg = config.of_settings(settings)
        holder = ArtifactHolder(tmp_path / "none.json", required=False)
        self.release = asyncio.Event()
        self.service = Service(holder, self.cfg, logger)
        if idle is not None:
            self.service.idle_seconds = idle
        if head is not None:
            self.service.door.head = head
        if body is not None:
            self.service.door.body = body
        answers = LocalAnswers()
        self.answered: dict = {}
        self.matcher = Matcher(
            holder,
            base_setup(self.cfg),
            self.ask,
            answers,
            deadline=10,
            concurrency=8,
            logger=logger,
            held=self.held,
        )

    async def ask(self, question):
        assert isinstance(question, Exists), question
        if question.doi == "10.1234/slow":
            await self.release.wait()
        self.answered[question] = question.doi.lower() in REGISTERED
        return self.answered[question], 1

    def held(self, question):
        if question not in self.answered:
            raise NotHeld(question)
        return self.answered[question], 0

    async def __aenter__(self):
        self.host, self.port = await self.service.start("127.0.0.1", 0)
        self.service.ready(self.matcher)
        return self

    async def __aexit__(self, *exc):
        self.release.set()
        await self.service.drain(5)

    async def connect(self):
        return await asyncio.open_connection(self.host, self.port)


async def read_response(reader) -> tuple[int, dict, bytes]:
    """(status, headers, body) of one HTTP/1.1 response with a Content-Length or chunked body."""
    head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), DEADLINE)
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    headers = {name.lower(): value for name, _, value in (line.partition(": ") for line in lines[1:] if line)}
    if "content-length" in headers:
        body = await asyncio.wait_for(reader.readexactly(int(headers["content-length"])), DEADLINE)
    else:
        body = b""
        while (size := int((await asyncio.wait_for(reader.readline(), DEADLINE)).strip(), 16)) != 0:
            body += await reader.readexactly(size)
            await reader.readline()
        await reader.readline()
    return status, headers, body


def get(target: str, *extra: str, version: str = "1.1") -> bytes:
    return f"GET {target} HTTP/{version}\r\nHost: test\r\n{''.join(h + chr(13) + chr(10) for h in extra)}\r\n".encode()


def run(coroutine):
    return asyncio.run(asyncio.wait_for(coroutine, DEADLINE * 2))


def test_pipelined_gets_on_one_connection_are_answered_in_order_a_slow_one_holding_back_those_after_it(tmp_path):
    async def scenario():
        async with Served(tmp_path) as served:
            reader, writer = await served.connect()
            writer.write(get("/match?q=10.1234/slow&fetch=none") + get("/match?q=10.1234/known&fetch=none"))
            await writer.drain()
            early = asyncio.ensure_future(read_response(reader))
            await asyncio.sleep(0)
            while served.service.in_flight == 0:
                await asyncio.sleep(0.01)
            held = (early.done(), served.service.in_flight)  # the first is waiting; the second is not yet read
            served.release.set()
            first, second = await early, await read_response(reader)
            writer.close()
            return held, [(status, json.loads(body)["input"]) for status, _, body in (first, second)]

    held, answers = run(scenario())
    assert (held, answers) == ((False, 1), [(200, "10.1234/slow"), (200, "10.1234/known")])


def test_a_get_whose_answers_this_process_holds_is_answered_at_once_and_only_the_others_wait_for_the_loop(tmp_path):
    async def scenario():
        async with Served(tmp_path) as served:
            reader, writer = await served.connect()
            writer.write(get("/match?q=10.1234/known&fetch=none"))  # its question asked: held from then on
            await writer.drain()
            await read_response(reader)
            waited, answer = [], served.service.fast_match

            async def counted(target, peer):
                waited.append(target)
                return await answer(target, peer)

            served.service.fast_match = counted  # what a connection made from now on awaits
            reader, writer = await served.connect()
            writer.write(get("/match?q=%2010.1234/known&fetch=none") + get("/match?q=10.1234/other&fetch=none"))
            await writer.drain()
            found = [await read_response(reader), await read_response(reader)]
            writer.close()
            return waited, [(status, json.loads(body)["input"]) for status, _, body in found]

    waited, answers = run(scenario())
    assert (waited, answers) == (
        [b"/match?q=10.1234/other&fetch=none"],
        [(200, "10.1234/known"), (200, "10.1234/other")],
    )


def test_a_post_after_a_get_on_the_same_connection_is_answered_by_aiohttp_in_turn(tmp_path):
    async def scenario():
        async with Served(tmp_path) as served:
            reader, writer = await served.connect()
            body = b'"10.1234/known"\n"10.1234/nothing"\n'
            post = b"POST /match?fetch=none HTTP/1.1\r\nHost: test\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body)
            writer.write(get("/match?q=10.1234/known&fetch=none") + post + get("/healthz"))
            await writer.drain()
            got = [await read_response(reader) for _ in range(3)]
            writer.close()
            return got

    (s1, h1, b1), (s2, h2, b2), (s3, _, b3) = run(scenario())
    lines = [json.loads(line)["doi"] for line in b2.splitlines()]
    assert (s1, json.loads(b1)["doi"], "server" in h1) == (200, "10.1234/known", False)  # the fast path's own
    assert (s2, h2["content-type"], lines, h2["server"].startswith("Python")) == (
        200,
        "application/x-ndjson",
        ["10.1234/known", None],
        True,
    )
    assert (s3, json.loads(b3)["status"]) == (200, "ok")


@pytest.mark.parametrize(
    "target",
    [
        "/match?q=10.1234/known&fetch=none",
        "/match?q=10.1234%2Fknown&fetch=none#fragment",
        "/match?q=+10.1234/known+&fetch=none",
        "/match?q=%E2%9C%93%2010.1234/known&fetch=none",
        "/match?q=10.1234/known&fetch=some",
        "/match?q=%20",
        "/match",
        f"/match?q={'x' * (MAX_INPUT + 1)}",
    ],
    ids=["plain", "escaped, a fragment", "plus signs", "utf-8", "bad fetch", "blank q", "no q", "over the input limit"],
)
def test_a_get_answered_by_the_fast_path_is_the_one_aiohttp_answers(tmp_path, target):
    async def scenario():
        async with Served(tmp_path) as served:
            answers = []
            for version in ("1.1", "1.0"):  # HTTP/1.0 goes to aiohttp
                reader, writer = await served.connect()
                writer.write(get(target, "Connection: close", version=version))
                status, headers, body = await read_response(reader)
                answers.append((status, headers["content-type"], json.loads(body), "server" in headers))
                writer.close()
            return answers

    fast, slow = run(scenario())
    assert (fast[:3], fast[3], slow[3]) == (slow[:3], False, True)


@pytest.mark.parametrize(
    ("head", "status"),
    [
        (b"GET /match?q=10.1234/known HTTP/1.1\r\nHost: test\r\nno colon here\r\n\r\n", 400),
        (b"GET /match?q=10.1234/known HTTP/1.1\r\nAccept: */*\r\n\r\n", 400),
        (b"GET /match?q=10.1234/known HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", 400),
        (b"GET /match?q=10.1234/known HTTP/1.1\r\nHost: test\r\nX-Nul: a\x00b\r\n\r\n", 400),
    ],
    ids=[
        "malformed header",
        "no host",
        "two hosts",
        "a nul in a value",
    ],
)
def test_a_head_the_fast_path_cannot_read_gets_aiohttps_own_refusal(tmp_path, head, status):
    async def scenario():
        async with Served(tmp_path) as served:
            reader, writer = await served.connect()
            writer.write(head)
            got = await read_response(reader)
            writer.close()
            return got

    got, headers, _ = run(scenario())
    assert (got, headers["content-type"].split(";")[0]) == (status, "text/plain")  # aiohttp's; the fast path's is JSON


@pytest.mark.parametrize(
    ("head", "status"),
    [
        (b"GET /match?q=" + b"x" * 9000 + b" HTTP/1.1\r\nHost: test\r\n\r\n", 414),
        (b"POST /match?q=" + b"x" * 9000 + b" HTTP/1.1\r\nHost: test\r\n\r\n", 414),
        (b"GET /match?q=10.1234/known HTTP/1.1\r\nHost: test\r\nX-Long: " + b"y" * 5000 + b"\r\n\r\n", 431),
        (b"GET /match?q=10.1234/known HTTP/1.1\r\nHost: test\r\n" + b"X-A: b\r\n" * 40 + b"\r\n", 431),
        (b"GET /match?q=10.1234/known HTTP/1.1\r\nHost: test\r\n" + (b"X-A: " + b"y" * 4000 + b"\r\n") * 5, 431),
    ],
    ids=["a long target", "a long target, not a GET", "a long field", "too many fields", "a long head, unfinished"],
)
def test_a_head_past_the_bounds_is_refused_in_json_closed_and_logged_once(tmp_path, head, status, caplog):
    async def scenario():
        async with Served(tmp_path) as served:
            reader, writer = await served.connect()
            writer.write(head)
            got = await read_response(reader)
            rest = await asyncio.wait_for(reader.read(), DEADLINE)
            writer.close()
            return got, rest

    caplog.set_level(logging.INFO, logger=logger.name)
    (got, headers, body), rest = run(scenario())
    refused = [r.getMessage() for r in caplog.records if r.getMessage().startswith("refused a request from")]
    assert (got, json.loads(body)["status"], headers["connection"], rest, len(refused)) == (
        status,
        status,
        "close",
        b"",
        1,
    )


def test_a_connection_that_sends_no_complete_head_within_the_head_time_is_closed(tmp_path):
    async def scenario():
        async with Served(tmp_path, head=0.2) as served:
            reader, writer = await served.connect()
            writer.write(b"GET /match?q=10.1234/known HTTP/1.1\r\nHost: te")  # and nothing more
            ended = await asyncio.wait_for(reader.read(), DEADLINE)
            return ended, len(served.service.connections)

    assert run(scenario()) == (b"", 0)


def test_a_connection_idle_after_an_answer_for_the_idle_time_is_closed(tmp_path):
    async def scenario():
        async with Served(tmp_path, idle=0.2) as served:
            reader, writer = await served.connect()
            writer.write(get("/match?q=10.1234/known&fetch=none"))
            status = (await read_response(reader))[0]
            ended = await asyncio.wait_for(reader.read(), DEADLINE)
            return status, ended, len(served.service.connections)

    assert run(scenario()) == (200, b"", 0)


def test_connection_close_is_answered_with_connection_close_and_the_connection_closed(tmp_path):
    async def scenario():
        async with Served(tmp_path) as served:
            reader, writer = await served.connect()
            writer.write(get("/match?q=10.1234/known&fetch=none", "Connection: close"))
            status, headers, _ = await read_response(reader)
            rest = await asyncio.wait_for(reader.read(), DEADLINE)
            return status, headers.get("connection"), rest

    assert run(scenario()) == (200, "close", b"")


def test_a_get_while_draining_is_answered_503_on_a_connection_already_open_and_the_one_in_flight_finishes(tmp_path):
    async def scenario():
        async with Served(tmp_path) as served:
            reader, writer = await served.connect()
            other_reader, other_writer = await served.connect()  # open before the drain
            writer.write(get("/match?q=10.1234/slow&fetch=none"))
            await writer.drain()
            while served.service.in_flight == 0:
                await asyncio.sleep(0.01)
            draining = asyncio.ensure_future(served.service.drain(5))
            while not served.service.draining:
                await asyncio.sleep(0.01)
            other_writer.write(get("/match?q=10.1234/known&fetch=none"))
            refused = await read_response(other_reader)
            served.release.set()
            first = await read_response(reader)
            finished = await draining
            return first[0], refused[0], json.loads(refused[2])["error"], finished

    assert run(scenario()) == (200, 503, "the service is stopping", True)


class Recorded:
    """A transport that keeps what is written to it."""

    def __init__(self):
        self.written: list = []

    def get_extra_info(self, name):
        return ("127.0.0.1", 40000)

    def write(self, data):
        self.written.append(data)

    def is_closing(self):
        return False

    def close(self):
        pass


def test_pipelined_gets_answered_at_once_give_other_connections_a_turn_after_at_once_answers():
    async def scenario():
        connection = FastConnection(None, None, set(), now=lambda target, peer: (200, b"{}"))
        transport = Recorded()
        connection.connection_made(transport)
        seen = []
        asyncio.get_running_loop().call_soon(lambda: seen.append(len(transport.written)))  # another connection's turn
        connection.data_received(get("/match?q=10.1234/known") * (AT_ONCE * 2 + 1))
        for _ in range(5):
            await asyncio.sleep(0)
        connection.connection_lost(None)
        return seen, len(transport.written)

    assert run(scenario()) == ([AT_ONCE], AT_ONCE * 2 + 1)
