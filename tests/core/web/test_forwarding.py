import pytest
from urllib3.util import make_headers

from landing.core.web.forwarding import BadAsk, asked, authorized


def test_a_connect_names_its_host_and_port_and_sends_nothing_on():
    ask = asked(b"CONNECT example.org:443 HTTP/1.1\r\nHost: example.org:443\r\n\r\n")
    assert ask == (True, "example.org", 443, "https://example.org:443/", b"", None)


def test_a_connect_to_a_bracketed_ipv6_address_names_the_address_without_brackets():
    ask = asked(b"CONNECT [2001:db8::1]:8443 HTTP/1.1\r\n\r\n")
    assert (ask.host, ask.port, ask.url) == ("2001:db8::1", 8443, "https://[2001:db8::1]:8443/")


def test_an_absolute_form_request_goes_on_in_origin_form_closing_and_without_proxy_headers():
    head = (
        b"GET http://example.org/a/b?c=1 HTTP/1.1\r\nHost: example.org\r\nProxy-Connection: keep-alive\r\n"
        b"Proxy-Authorization: Basic eA==\r\nAccept: text/html\r\n\r\n"
    )
    ask = asked(head)
    assert (ask.tunnel, ask.host, ask.port, ask.url) == (False, "example.org", 80, "http://example.org/a/b?c=1")
    assert ask.head == b"GET /a/b?c=1 HTTP/1.1\r\nHost: example.org\r\nAccept: text/html\r\nConnection: close\r\n\r\n"


def test_headers_the_connection_header_lists_are_dropped_with_it():
    head = b"GET http://example.org:8080/ HTTP/1.1\r\nConnection: keep-alive, X-Hop\r\nX-Hop: 1\r\nX-End: 2\r\n\r\n"
    ask = asked(head)
    assert ask.port == 8080
    assert ask.head == b"GET / HTTP/1.1\r\nX-End: 2\r\nConnection: close\r\n\r\n"


def test_a_body_keeps_its_content_length_and_is_that_long():
    ask = asked(b"POST http://example.org/f HTTP/1.1\r\nContent-Length: 3\r\n\r\n")
    assert b"\r\nContent-Length: 3\r\n" in ask.head
    assert ask.body == 3


def test_a_request_without_a_body_has_none_to_relay():
    assert asked(b"GET http://example.org/ HTTP/1.1\r\n\r\n").body == 0


def test_a_body_in_chunks_is_a_bad_ask_answered_411():
    with pytest.raises(BadAsk) as bad:
        asked(b"POST http://example.org/f HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n")
    assert bad.value.status == 411


@pytest.mark.parametrize(
    "lengths", [b"Content-Length: x1", b"Content-Length: \xb2", b"Content-Length: 3\r\nContent-Length: 4"]
)
def test_a_content_length_that_is_not_one_number_is_a_bad_ask(lengths):
    with pytest.raises(BadAsk) as bad:
        asked(b"POST http://example.org/f HTTP/1.1\r\n" + lengths + b"\r\n\r\n")
    assert bad.value.status == 400


def test_going_on_through_another_proxy_keeps_the_absolute_url():
    ask = asked(b"GET http://example.org/x HTTP/1.1\r\nHost: example.org\r\n\r\n", through_proxy=True)
    assert ask.head.startswith(b"GET http://example.org/x HTTP/1.1\r\n")


@pytest.mark.parametrize(
    "head",
    [
        b"GET /relative HTTP/1.1\r\n\r\n",  # origin form: not a proxy request
        b"GET https://example.org/ HTTP/1.1\r\n\r\n",  # https is asked with CONNECT
        b"GET ftp://example.org/ HTTP/1.1\r\n\r\n",
        b"GET http://example.org/ HTTP/2\r\n\r\n",
        b"CONNECT example.org HTTP/1.1\r\n\r\n",  # no port
        b"CONNECT user@example.org:443 HTTP/1.1\r\n\r\n",
        b"CONNECT example.org:99999 HTTP/1.1\r\n\r\n",
        b"GET http://example.org:port/ HTTP/1.1\r\n\r\n",
        b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03\r\n\r\n",  # TLS spoken to the proxy itself
        b"CONNECT [::1:80 HTTP/1.1\r\n\r\n",  # an IPv6 address never closed
        b"GET http://[::1/ HTTP/1.1\r\n\r\n",
    ],
)
def test_what_is_no_forward_proxy_request_is_a_bad_ask(head):
    with pytest.raises(BadAsk):
        asked(head)


PROXY_USER, PROXY_PASSWORD = "landing", "s3cr3t-run-token"


def _with(authorization: bytes) -> bytes:
    return b"CONNECT example.org:443 HTTP/1.1\r\nHost: example.org:443\r\n" + authorization + b"\r\n\r\n"


def basic(username: str, password: str) -> str:
    """The Proxy-Authorization value as a client writes it (urllib3), not as the proxy reads it."""
    return make_headers(proxy_basic_auth=f"{username}:{password}")["proxy-authorization"]


@pytest.mark.parametrize(
    "authorization",
    [
        f"Proxy-Authorization: {basic(PROXY_USER, PROXY_PASSWORD)}",
        "proxy-authorization:basic  bGFuZGluZzpzM2NyM3QtcnVuLXRva2Vu ",
    ],
)
def test_a_head_with_this_runs_credentials_is_authorized(authorization):
    assert authorized(_with(authorization.encode()), PROXY_USER, PROXY_PASSWORD)


@pytest.mark.parametrize(
    "authorization",
    [
        b"X-Other: 1",  # none at all
        f"Proxy-Authorization: {basic(PROXY_USER, 'another-run')}".encode(),
        f"Proxy-Authorization: {basic('nobody', PROXY_PASSWORD)}".encode(),
        b"Proxy-Authorization: Bearer bGFuZGluZzpzM2NyM3QtcnVuLXRva2Vu",
        b"Proxy-Authorization: Basic !!!not-base64\xff",
        b"Authorization: " + basic(PROXY_USER, PROXY_PASSWORD).encode(),  # the site's header, not the proxy's
    ],
)
def test_a_head_without_this_runs_credentials_is_not_authorized(authorization):
    assert not authorized(_with(authorization), PROXY_USER, PROXY_PASSWORD)
