"""The guarding proxy's own defences, over real sockets: per-run credentials, one judged request a connection, a
clear answer to what it cannot parse, and bounded time and connections."""

import asyncio
import resource
from contextlib import asynccontextmanager

import pytest

from landing.browser import forward_proxy as proxy_module
from landing.browser.forward_proxy import GuardingProxy, connection_cap
from tests.browser.network import Site, basic, credentialed, mapped

PUBLIC = "93.184.215.14"
WAIT = 5  # seconds: only ever reached when the behaviour under test is missing


async def _answers(host):
    return {"a.example": (PUBLIC,)}.get(host, ())


@asynccontextmanager
async def _proxy(monkeypatch, site: Site | None = None, **limits):
    """(proxy, its Playwright option, connections made, refusals), a.example's address mapped onto site."""
    made, refusals = [], []
    site = site or Site()
    listener = await asyncio.start_server(site, "127.0.0.1", 0)
    port = listener.sockets[0].getsockname()[1]
    monkeypatch.setattr(proxy_module, "open_connection", mapped({f"{PUBLIC}:80": port, f"{PUBLIC}:443": port}, made))
    proxy = GuardingProxy(_answers, lambda *refusal: refusals.append(refusal), **limits)
    option = await proxy.start()
    try:
        yield proxy, option, made, refusals
    finally:
        await proxy.close()
        listener.close()
        site.close()


async def _connect(option: dict):
    return await asyncio.open_connection("127.0.0.1", int(option["server"].rsplit(":", 1)[1]))


async def _ask(option: dict, head: bytes) -> bytes:
    """All the proxy answers to head, until it closes the connection."""
    reader, writer = await _connect(option)
    writer.write(head)
    answer = await asyncio.wait_for(reader.read(), WAIT)
    writer.close()
    return answer


async def _ended(proxy: GuardingProxy) -> None:
    """Once every connection the proxy holds now has ended (or WAIT has passed: they are left running, not cancelled)."""
    if proxy.relays:
        await asyncio.wait(list(proxy.relays), timeout=WAIT)


async def _within(waiting):
    try:
        return await asyncio.wait_for(waiting, WAIT)
    except TimeoutError:
        return None


@pytest.mark.parametrize(
    "authorization",
    [b"", b"Proxy-Authorization: " + basic("landing", "a-guess").encode() + b"\r\n"],
    ids=["none", "wrong"],
)
def test_a_request_without_this_runs_credentials_is_answered_407_unjudged_and_unconnected(monkeypatch, authorization):
    async def scenario():
        async with _proxy(monkeypatch) as (_, option, made, refusals):
            answer = await _ask(option, b"CONNECT a.example:443 HTTP/1.1\r\n" + authorization + b"\r\n")
            return answer, made, refusals

    answer, made, refusals = asyncio.run(scenario())
    assert answer.startswith(b"HTTP/1.1 407 Proxy Authentication Required\r\n")
    assert b'\r\nProxy-Authenticate: Basic realm="landing"\r\n' in answer
    assert (made, refusals) == ([], [])


def test_each_proxy_has_credentials_of_its_own():
    first, second = GuardingProxy(_answers, print), GuardingProxy(_answers, print)
    assert first.password != second.password and len(first.password) >= 32


SECOND = b"GET http://169.254.169.254/latest/meta-data/ HTTP/1.1\r\nHost: 169.254.169.254\r\n\r\n"


@pytest.mark.parametrize(
    "first, sent",
    [
        (
            b"GET http://a.example/ HTTP/1.1\r\nHost: a.example\r\n\r\n",
            b"GET / HTTP/1.1\r\nHost: a.example\r\nConnection: close\r\n\r\n",
        ),
        (
            b"POST http://a.example/form HTTP/1.1\r\nContent-Length: 5\r\n\r\nhello",
            b"POST /form HTTP/1.1\r\nContent-Length: 5\r\nConnection: close\r\n\r\nhello",
        ),
    ],
    ids=["get", "post"],
)
def test_a_second_request_sent_with_the_first_never_reaches_the_site(monkeypatch, first, sent):
    site = Site()

    async def scenario():
        async with _proxy(monkeypatch, site) as (_, option, *_):
            reader, writer = await _connect(option)
            writer.write(credentialed(first, option) + credentialed(SECOND, option))
            ended = await _within(site.ended.get())
            writer.close()
            return ended

    ended = asyncio.run(scenario())
    assert site.received == [sent]  # nor the proxy's credentials
    assert ended == sent  # the site's connection closed with it


def test_a_second_request_after_the_first_answer_is_closed_unanswered_and_never_reaches_the_site(monkeypatch):
    site = Site(answer=b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")  # keeps the connection, as if to reuse it

    async def scenario():
        async with _proxy(monkeypatch, site) as (_, option, *_):
            reader, writer = await _connect(option)
            writer.write(credentialed(b"GET http://a.example/ HTTP/1.1\r\n\r\n", option))
            answer = await asyncio.wait_for(reader.readexactly(40), WAIT)
            writer.write(credentialed(SECOND, option))
            rest = await _within(reader.read())
            writer.close()
            return answer, rest, await _within(site.ended.get())

    answer, rest, ended = asyncio.run(scenario())
    assert answer == b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"
    assert rest == b""
    assert ended == site.received[0] == b"GET / HTTP/1.1\r\nConnection: close\r\n\r\n"


@pytest.mark.parametrize("head", [b"CONNECT [::1:80 HTTP/1.1\r\n\r\n", b"GET http://[::1/ HTTP/1.1\r\n\r\n"])
def test_an_unclosed_ipv6_address_is_answered_400(monkeypatch, head):
    async def scenario():
        async with _proxy(monkeypatch) as (_, option, made, _):
            return await _ask(option, credentialed(head, option)), made

    answer, made = asyncio.run(scenario())
    assert answer.startswith(b"HTTP/1.1 400 Bad Request\r\n") and b"Invalid IPv6 URL" in answer
    assert made == []


def test_a_chunked_request_body_is_answered_411_without_connecting(monkeypatch):
    head = b"POST http://a.example/ HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n"

    async def scenario():
        async with _proxy(monkeypatch) as (_, option, made, _):
            return await _ask(option, credentialed(head, option)), made

    answer, made = asyncio.run(scenario())
    assert answer.startswith(b"HTTP/1.1 411 Length Required\r\n") and made == []


def test_heads_not_finished_within_the_head_timeout_are_answered_408_and_their_connections_end(monkeypatch):
    async def scenario():
        async with _proxy(monkeypatch, head_timeout=0.2) as (proxy, option, *_):
            clients = [await _connect(option) for _ in range(20)]
            for _, writer in clients:
                writer.write(b"GET http://a.example/ HTTP/1.1\r\nHost: a.ex")
            answers = [await _within(reader.read()) for reader, _ in clients]
            return answers, len(proxy.relays)

    answers, left = asyncio.run(scenario())
    assert all(answer.startswith(b"HTTP/1.1 408 Request Timeout\r\n") for answer in answers)
    assert left == 0


def test_a_tunnel_silent_both_ways_is_closed_on_both_sides_after_the_idle_timeout(monkeypatch):
    site = Site()

    async def scenario():
        async with _proxy(monkeypatch, site, idle_timeout=0.2) as (proxy, option, *_):
            reader, writer = await _connect(option)
            writer.write(credentialed(b"CONNECT a.example:443 HTTP/1.1\r\n\r\n", option))
            established = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), WAIT)
            return established, await _within(reader.read()), await _within(site.ended.get())

    established, rest, ended = asyncio.run(scenario())
    assert established == b"HTTP/1.1 200 Connection established\r\n\r\n"
    assert (rest, ended) == (b"", b"")


def test_when_chromium_closes_its_side_of_tunnels_to_a_silent_site_the_proxy_lets_go_of_them(monkeypatch):
    site = Site(holds=True)  # it never closes its side

    async def scenario():
        async with _proxy(monkeypatch, site) as (proxy, option, *_):
            for _ in range(20):
                reader, writer = await _connect(option)
                writer.write(credentialed(b"CONNECT a.example:443 HTTP/1.1\r\n\r\n", option))
                await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), WAIT)
                writer.close()
            await _ended(proxy)
            return len(proxy.relays), [await _within(site.ended.get()) for _ in range(20)]

    left, ended = asyncio.run(scenario())
    assert left == 0
    assert ended == [b""] * 20


def test_past_the_connection_cap_a_connection_is_answered_503_until_one_ends(monkeypatch):
    async def scenario():
        async with _proxy(monkeypatch, max_connections=2) as (proxy, option, *_):
            held = [await _connect(option) for _ in range(2)]
            refused = await _ask(option, b"")
            held[0][1].close()
            await _within(held[0][0].read())
            served = await _ask(option, credentialed(b"GET /no-proxy-form HTTP/1.1\r\n\r\n", option))
            return refused, served

    refused, served = asyncio.run(scenario())
    assert refused.startswith(b"HTTP/1.1 503 Service Unavailable\r\n")
    assert served.startswith(b"HTTP/1.1 400 Bad Request\r\n")


@pytest.mark.parametrize("descriptors, cap", [(1024, 128), (16384, 512)])
def test_the_connection_cap_is_64_a_browser_page_within_a_quarter_of_the_file_descriptors(descriptors, cap):
    kept = resource.getrlimit(resource.RLIMIT_NOFILE)
    if kept[1] != resource.RLIM_INFINITY and kept[1] < descriptors:
        pytest.skip(f"this process may not open {descriptors} file descriptors")
    resource.setrlimit(resource.RLIMIT_NOFILE, (descriptors, kept[1]))
    try:
        assert connection_cap(8) == cap
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, kept)
