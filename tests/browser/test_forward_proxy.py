import asyncio

import pytest

from landing.browser import forward_proxy as proxy_module
from landing.browser.forward_proxy import GuardingProxy
from landing.browser.rules import stopped
from tests.browser.network import credentialed, listening, mapped
from tests.local_http import serving

PUBLIC, OTHER_PUBLIC = "93.184.215.14", "93.184.215.15"


def _answers(table):
    async def answers(host):
        return table.get(host, ())

    return answers


def _refusals(kept):
    def refused(host, port, error, detail, stat):
        kept.append((host, port, error, detail, stat))

    return refused


async def _ask(proxy: dict, head: bytes, then: bytes = b"") -> bytes:
    host, port = proxy["server"].removeprefix("http://").split(":")
    reader, writer = await asyncio.open_connection(host, int(port))
    writer.write(credentialed(head, proxy))
    await writer.drain()
    try:
        answer = await reader.readuntil(b"\r\n\r\n")
    except asyncio.IncompleteReadError as closed:  # a listener that closes without answering
        return closed.partial
    if then:
        writer.write(then)
        await writer.drain()
    answer += await asyncio.wait_for(reader.read(), 5)
    writer.close()
    return answer


def _through_proxy(monkeypatch, network, head, names=None, then=b"", upstream=None):
    made, refusals = [], []
    monkeypatch.setattr(proxy_module, "open_connection", mapped(network, made))

    async def run():
        proxy = GuardingProxy(_answers(names or {}), _refusals(refusals), upstream)
        option = await proxy.start()
        try:
            return await _ask(option, head, then)
        finally:
            await proxy.close()

    return asyncio.run(run()), made, refusals


@pytest.mark.parametrize(
    "target, reason",
    [
        ("169.254.169.254:80", "cloud-metadata"),
        ("10.0.0.5:443", "private"),
        ("[fd00:ec2::254]:80", "cloud-metadata"),
        ("127.0.0.1:8080", "loopback"),
    ],
)
def test_a_tunnel_to_a_forbidden_address_is_refused_403_and_never_reaches_its_listener(monkeypatch, target, reason):
    with listening() as (port, connections):
        network = {target.replace("[", "").replace("]", ""): port}
        answer, made, refusals = _through_proxy(monkeypatch, network, f"CONNECT {target} HTTP/1.1\r\n\r\n".encode())
    assert answer.startswith(b"HTTP/1.1 403 Forbidden\r\n")
    assert (made, connections) == ([], [])
    assert refusals[0][2:] == ("refused-address", refusals[0][3], f"landing/refused/{reason}")


def test_a_name_that_resolves_to_a_private_address_is_refused_by_its_answer(monkeypatch):
    answer, made, refusals = _through_proxy(
        monkeypatch, {}, b"CONNECT intranet.example:443 HTTP/1.1\r\n\r\n", names={"intranet.example": ("10.1.2.3",)}
    )
    assert answer.startswith(b"HTTP/1.1 403 ")
    assert made == []
    assert refusals == [
        (
            "intranet.example",
            443,
            "refused-address",
            "refused: intranet.example resolves to 10.1.2.3 (private)",
            "landing/refused/private",
        )
    ]


def test_a_name_with_no_answer_is_refused_as_dns_not_left_to_resolve_again(monkeypatch):
    answer, made, refusals = _through_proxy(monkeypatch, {}, b"CONNECT nowhere.example:443 HTTP/1.1\r\n\r\n")
    assert answer.startswith(b"HTTP/1.1 403 ")
    assert made == []
    assert refusals[0][2] == "dns"


def test_a_userinfo_trick_in_a_plain_request_is_refused(monkeypatch):
    head = b"GET http://public.example@10.0.0.5/ HTTP/1.1\r\nHost: 10.0.0.5\r\n\r\n"
    answer, made, refusals = _through_proxy(monkeypatch, {}, head)
    assert answer.startswith(b"HTTP/1.1 403 ")
    assert (made, refusals[0][4]) == ([], "landing/refused/userinfo")


def test_an_allowed_tunnel_connects_to_the_checked_address_and_relays_what_chromium_says(monkeypatch):
    with listening() as (port, connections):
        answer, made, refusals = _through_proxy(
            monkeypatch,
            {f"{PUBLIC}:443": port},
            b"CONNECT journal.example:443 HTTP/1.1\r\n\r\n",
            names={"journal.example": (PUBLIC,)},
            then=b"\x16\x03\x01 hello",
        )
    assert answer.startswith(b"HTTP/1.1 200 Connection established\r\n\r\n")
    assert made == [f"{PUBLIC}:443"]  # the address the guard checked, never the name again
    assert connections == [b"\x16\x03\x01 hello"]
    assert refusals == []


def test_when_the_first_checked_address_does_not_answer_the_next_one_is_tried(monkeypatch):
    with listening() as (port, connections):
        answer, made, _ = _through_proxy(
            monkeypatch,
            {f"{OTHER_PUBLIC}:443": port},
            b"CONNECT journal.example:443 HTTP/1.1\r\n\r\n",
            names={"journal.example": (PUBLIC, OTHER_PUBLIC)},
            then=b"x",
        )
    assert made == [f"{PUBLIC}:443", f"{OTHER_PUBLIC}:443"]
    assert connections == [b"x"]


def test_a_plain_request_reaches_the_site_in_origin_form_and_its_answer_comes_back(monkeypatch):
    with serving(lambda path: (200, {"Content-Type": "text/plain"}, b"the page")) as (port, hits):
        head = b"GET http://journal.example/article/1?x=2 HTTP/1.1\r\nHost: journal.example\r\n\r\n"
        answer, made, _ = _through_proxy(
            monkeypatch, {f"{PUBLIC}:80": port}, head, names={"journal.example": (PUBLIC,)}
        )
    assert answer.startswith(b"HTTP/1.0 200 OK\r\n") and answer.endswith(b"\r\n\r\nthe page")
    assert (made, hits) == ([f"{PUBLIC}:80"], ["/article/1?x=2"])


def test_a_site_that_does_not_answer_the_connection_is_a_502(monkeypatch):
    answer, made, _ = _through_proxy(monkeypatch, {}, f"CONNECT {PUBLIC}:443 HTTP/1.1\r\n\r\n".encode())
    assert answer.startswith(b"HTTP/1.1 502 Bad Gateway\r\n")


@pytest.mark.parametrize(
    "head, status",
    [
        (b"GET /not-a-proxy-request HTTP/1.1\r\n\r\n", b"400"),
        (b"GET http://x.example/ HTTP/1.1\r\nX: " + b"y" * 70000 + b"\r\n\r\n", b"431"),
    ],
)
def test_what_is_not_a_proxy_request_is_answered_without_connecting(monkeypatch, head, status):
    answer, made, _ = _through_proxy(monkeypatch, {}, head)
    assert answer.startswith(b"HTTP/1.1 " + status) and made == []


def test_through_an_upstream_proxy_a_checked_tunnel_is_asked_of_it_in_turn(monkeypatch):
    with listening() as (port, connections):
        _through_proxy(
            monkeypatch,
            {"192.0.2.10:3128": port},
            f"CONNECT {PUBLIC}:443 HTTP/1.1\r\n\r\n".encode(),
            upstream=("192.0.2.10", 3128),
        )
    assert connections == [f"CONNECT {PUBLIC}:443 HTTP/1.1\r\nHost: {PUBLIC}:443\r\n\r\n".encode()]


def test_a_visit_whose_navigation_the_proxy_refused_names_the_refusal_by_its_url():
    from landing.browser.rules import proxy_refused

    proxy_refused("10.9.8.7", 443, "refused-address", "refused: 10.9.8.7 (private)", "landing/refused/private")
    assert stopped("https://10.9.8.7/login?next=1") == (
        "refused-address",
        "refused: 10.9.8.7 (private)",
        "landing/refused/private",
    )
    assert stopped("https://10.9.8.7:8443/") is None
