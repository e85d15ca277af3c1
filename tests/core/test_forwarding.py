import pytest

from landing.core.forwarding import BadAsk, asked


def test_a_connect_names_its_host_and_port_and_sends_nothing_on():
    ask = asked(b"CONNECT example.org:443 HTTP/1.1\r\nHost: example.org:443\r\n\r\n")
    assert ask == (True, "example.org", 443, "https://example.org:443/", b"")


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


def test_a_body_keeps_its_framing_headers():
    ask = asked(b"POST http://example.org/f HTTP/1.1\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n")
    assert b"Content-Length: 3\r\nTransfer-Encoding: chunked\r\n" in ask.head


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
    ],
)
def test_what_is_no_forward_proxy_request_is_a_bad_ask(head):
    with pytest.raises(BadAsk):
        asked(head)
