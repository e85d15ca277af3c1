"""A real Chromium behind landing.browser.forward_proxy: what page routing never sees still cannot reach a private address.

The page is served from 127.0.0.1 under a public address (tests/browser/network.py); 10.0.0.5 and 169.254.169.254
are mapped onto a listener too, so a connection the proxy let through would be seen there.
"""

import os
from contextlib import contextmanager

import pytest

from tests.browser.network import listening
from tests.browser.probe import needs_chromium, run, visit
from tests.local_http import serving

SITE, ELSEWHERE = "93.184.215.14", "93.184.215.15"
SOCKET = (
    b"<html><body><p>A page with a socket.</p><script>var s = new WebSocket('%s');"
    b"s.onerror = s.onclose = function () { document.body.innerHTML += '<p>socket closed</p>'; };"
    b"</script></body></html>"
)
SUBRESOURCES = (
    b"<html><body><p>A page with a script and a fetch.</p><script src='/jump?script'></script>"
    b"<script>fetch('/jump?fetch').catch(function () {}).then(function () {"
    b" document.body.innerHTML += '<p>fetch done</p>'; });</script></body></html>"
)


def _site(path):
    if path == "/socket-private":
        return 200, {"Content-Type": "text/html"}, SOCKET % b"ws://10.0.0.5:8080/"
    if path == "/socket-public":
        return 200, {"Content-Type": "text/html"}, SOCKET % f"ws://{ELSEWHERE}:8080/".encode()
    if path == "/subresources":
        return 200, {"Content-Type": "text/html"}, SUBRESOURCES
    if path == "/robots.txt":
        return 200, {"Content-Type": "text/plain"}, b"User-agent: *\nDisallow: /private\n"
    if path.startswith("/jump"):
        return 302, {"Location": "http://169.254.169.254/latest/meta-data/"}, b""
    return 404, {"Content-Type": "text/plain"}, b"no such page"


@pytest.fixture
def world():
    """(network map, site hits, private listener's connections, public listener's connections)."""
    with _network() as network:
        yield network


@contextmanager
def _network():
    with serving(_site) as (site, hits), listening() as (private, reached), listening() as (public, allowed):
        network = {
            f"{SITE}:80": site,
            "10.0.0.5:8080": private,
            "169.254.169.254:80": private,
            f"{ELSEWHERE}:8080": public,
        }
        yield network, hits, reached, allowed


PRIVATE, PUBLIC = f"http://{SITE}/socket-private", f"http://{SITE}/socket-public"
SUBRESOURCES_PAGE, NAVIGATION = f"http://{SITE}/subresources", f"http://{SITE}/jump?navigation"


@pytest.fixture(scope="module")
def visited():
    """(visits, site hits, private listener's connections, public listener's connections) of one Chromium crawl of
    the pages the guard is tried with, run with crawl secrets in its environment: a crawl per page cost a Chromium
    start each, and no page's claim depends on another's (none may reach the private listener)."""
    with _network() as (network, hits, reached, allowed):
        secrets = {"AWS_SECRET_ACCESS_KEY": "s3cr3t", "LANDING_ES_URL": "x"}
        yield (
            visit([PRIVATE, PUBLIC, SUBRESOURCES_PAGE, NAVIGATION], network=network, environ=secrets),
            hits,
            reached,
            allowed,
        )


@needs_chromium
def test_a_websocket_to_a_private_address_never_reaches_a_listener(visited):
    visits, _, reached, allowed = visited
    assert [visits[url]["how"] for url in (PRIVATE, PUBLIC)] == ["visited", "visited"]
    assert "socket closed" in visits[PRIVATE]["text"]  # the page's socket was tried, and failed
    assert reached == []
    # The control: the same page's socket to a public address does go through the proxy, and arrives.
    assert len(allowed) == 1 and allowed[0].startswith(b"GET / HTTP/1.1\r\n") and b"Upgrade: websocket" in allowed[0]


@needs_chromium
def test_a_subresource_redirect_to_the_metadata_service_never_reaches_a_listener(visited):
    visits, hits, reached, _ = visited
    assert visits[SUBRESOURCES_PAGE]["how"] == "visited" and "fetch done" in visits[SUBRESOURCES_PAGE]["text"]
    # Both hops to the redirect were made; the other pages are the crawl's other visits, each asked once.
    assert sorted(hits) == sorted(
        ["/jump?fetch", "/jump?script", "/subresources", "/socket-private", "/socket-public", "/jump?navigation"]
    )
    assert reached == []


@needs_chromium
def test_a_navigation_redirected_to_the_metadata_service_is_stopped_and_named_refused_address(visited):
    visits, _, reached, _ = visited
    assert visits[NAVIGATION]["stop"] == [
        "http://169.254.169.254/latest/meta-data/",
        "refused-address",
        "refused: 169.254.169.254 (cloud-metadata)",
    ]
    assert reached == []


@needs_chromium
def test_robots_txt_asked_through_playwrights_own_requests_passes_the_proxys_credentials(world):
    network, hits, reached, _ = world
    url = f"http://{SITE}/private"
    visits = visit([url], network=network, ROBOTSTXT_OBEY=True)
    assert visits[url]["stop"] == [url, "robots", f"Forbidden by robots.txt: {url}"]
    # Through the proxy: a 407 would have read as no robots.txt (all allowed), and the visit would not have stopped.
    assert hits.count("/robots.txt") == 1


@needs_chromium
def test_chromium_runs_without_the_crawls_secrets_in_its_environment(visited):
    visits = visited[0]
    names = visits[PUBLIC]["chromium_environ"]
    assert "PATH" in names  # Chromium processes were found, with the environment they were given
    assert "AWS_SECRET_ACCESS_KEY" not in names and "LANDING_ES_URL" not in names


@needs_chromium
@pytest.mark.skipif(os.geteuid() != 0, reason="Chromium refuses its sandbox only as root, which this test relies on")
def test_where_chromium_cannot_keep_its_sandbox_the_crawl_goes_on_without_it_and_says_so(world):
    network, *_ = world
    url = f"http://{SITE}/socket-public"
    visits, log = run([url], network=network, environ={"LANDING_TEST_EUID": "1000"})  # the sandbox is tried
    assert visits[url]["how"] == "visited"
    assert "Chromium could not start with its sandbox, so it runs without one" in log
