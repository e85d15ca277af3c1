"""The service's bounds on connections (landing.serve.admission): caps, a stalled body, the accept-error log, through
the real Service over raw sockets where a socket is what is bounded."""

import asyncio
import errno
import gc
import json
import logging

from landing.serve.admission import ACCEPT_FAILED, Admission, collect_rarely, quiet_accept_errors
from tests.serve.test_fast_path import DEADLINE, Served, get, logger, read_response, run


async def refused_or_answered(served, local: str, ask: bool = True) -> tuple[int, bytes]:
    """A GET /match from the address `local` (not sent unless `ask`: a refused connection answers before any request,
    and a request sent to it as it closes could reset it): (the status, what came after the answer: b"" once closed)."""
    reader, writer = await asyncio.open_connection(served.host, served.port, local_addr=(local, 0))
    if ask:
        writer.write(get("/match?q=10.1234/known&fetch=none", "Connection: close"))
    status = (await read_response(reader))[0]
    rest = await asyncio.wait_for(reader.read(), DEADLINE)
    writer.close()
    return status, rest


def test_a_connection_past_its_clients_cap_is_answered_503_and_closed_while_another_client_is_answered(tmp_path):
    async def scenario():
        async with Served(tmp_path) as served:
            served.service.door.client_cap = 2
            held = [await asyncio.open_connection(served.host, served.port) for _ in range(2)]
            while len(served.service.door.open) < 2:  # both counted in (connection_made runs on the server's turn)
                await asyncio.sleep(0.01)
            over = await refused_or_answered(served, "127.0.0.1", ask=False)
            other = await refused_or_answered(served, "127.0.0.2")  # another peer address
            for _, writer in held:
                writer.close()
            return over, other, served.service.door.refusals

    assert run(scenario()) == ((503, b""), (200, b""), 1)


def test_a_connection_past_the_total_cap_is_refused_whatever_its_client(tmp_path):
    async def scenario():
        async with Served(tmp_path) as served:
            served.service.door.cap = 1
            _, writer = await asyncio.open_connection(served.host, served.port)
            while not served.service.door.open:
                await asyncio.sleep(0.01)
            over = await refused_or_answered(served, "127.0.0.2", ask=False)
            writer.close()
            return over

    assert run(scenario()) == (503, b"")


def test_a_connection_handed_to_aiohttp_is_counted_out_once_closed(tmp_path):
    async def scenario():
        async with Served(tmp_path) as served:
            door = served.service.door
            reader, writer = await served.connect()
            writer.write(get("/healthz"))  # not the fast path's: aiohttp's from here on
            await read_response(reader)
            counted = len(door.open)
            writer.close()
            while door.open:  # the sweep finds it closing; asked here rather than waited for
                door._sweep()
                await asyncio.sleep(0.01)
            return counted, dict(door.peers)

    assert run(scenario()) == (1, {})


def test_a_connection_handed_to_aiohttp_is_closed_once_idle_and_its_later_heads_bounded_as_the_fast_paths(tmp_path):
    async def scenario():
        async with Served(tmp_path, idle=0.2) as served:
            reader, writer = await served.connect()
            many = b"GET /healthz HTTP/1.1\r\nHost: test\r\n" + b"X-A: b\r\n" * 40 + b"\r\n"
            statuses = []
            for head in (get("/healthz"), many):  # aiohttp's from the first: its limits for the second
                writer.write(head)
                statuses.append((await read_response(reader))[0])
            ended = await asyncio.wait_for(reader.read(), DEADLINE)
            other_reader, other_writer = await served.connect()
            other_writer.write(get("/healthz"))
            idle = (await read_response(other_reader))[0], await asyncio.wait_for(other_reader.read(), DEADLINE)
            return statuses, ended, idle

    assert run(scenario()) == ([200, 400], b"", (200, b""))


def test_a_post_whose_body_stalls_is_answered_408_and_closed(tmp_path):
    async def scenario():
        async with Served(tmp_path, body=0.2) as served:
            reader, writer = await served.connect()
            writer.write(b'POST /match HTTP/1.1\r\nHost: test\r\nContent-Length: 100\r\n\r\n"10.1234/known"\n')
            status, _, body = await read_response(reader)
            rest = await asyncio.wait_for(reader.read(), DEADLINE)
            writer.close()
            return status, json.loads(body)["status"], rest

    assert run(scenario()) == (408, 408, b"")


class Transport:
    """A transport as the Admission sees one."""

    closing = False

    def is_closing(self):
        return self.closing


def test_memory_is_handed_back_once_a_burst_of_connections_has_closed_and_not_before():
    async def scenario():
        trimmed = []
        door = Admission(1000, 1000, logger, head=1, body=1, trim=lambda: trimmed.append(len(door.open)))
        burst = [Transport() for _ in range(300)]
        for transport in burst:
            door.admit(transport, "127.0.0.1")
        for transport in burst[:100]:
            transport.closing = True
        door._swept()
        early = list(trimmed)
        for transport in burst[100:]:
            transport.closing = True
        door._swept()
        door.close()
        return early, trimmed

    assert asyncio.run(scenario()) == ([], [0])


def test_accept_errors_for_want_of_descriptors_are_one_line_with_their_count_and_others_go_on(caplog):
    async def scenario():
        loop = asyncio.get_running_loop()
        others = []
        loop.set_exception_handler(lambda loop, context: others.append(context["message"]))
        quiet_accept_errors(loop, logger)
        for _ in range(500):
            failed = OSError(errno.EMFILE, "Too many open files")
            loop.call_exception_handler({"message": ACCEPT_FAILED, "exception": failed})
        loop.call_exception_handler({"message": "something else"})
        return others

    caplog.set_level(logging.WARNING, logger=logger.name)
    others = asyncio.run(scenario())
    lines = [r.getMessage() for r in caplog.records if r.name == logger.name]
    assert (others, lines) == (
        ["something else"],
        ["accept() failed 1 time(s) (at most one line a minute): [Errno 24] Too many open files"],
    )


def test_the_service_runs_full_collections_a_hundred_times_less_often_than_python_and_young_ones_as_often():
    before = gc.get_threshold()
    try:
        collect_rarely()
        assert gc.get_threshold() == (700, 10, 1000)
    finally:
        gc.set_threshold(*before)
