"""truth.jsonl against what the running sandbox serves: an independent client walks the DOIs and reads the pages.

The client is tests/sandbox/client.py over real sockets, with its own robots.txt reading (urllib.robotparser)
and its own page reading (lxml, tests/sandbox/reading.py); nothing here calls the truth walk itself.
server-error-burst counters live in the server process: whoever touches a DOI first meets the burst, so the
walk retries 429/5xx as the truth's client does and never compares the retried statuses.
"""

import random
import urllib.robotparser
from urllib.parse import urlsplit

import pytest

from landing_dev.sandbox import scenarios
from landing_dev.sandbox.server import RunningSandbox
from tests.sandbox import reading
from tests.sandbox.client import RETRY_STATUSES, follow, get

MAX_BYTES = 2 * 1024 * 1024
RETRIES = 2
MIXED_SAMPLE = 400
SKIPPED = {"slow"}  # 2 s a hop; test_scenarios touches it once


class Robots:
    """robots.txt per origin, fetched through the proxy once; a missing robots.txt allows everything."""

    def __init__(self, proxy):
        self.proxy, self.rules = proxy, {}

    def allowed(self, url) -> bool:
        parts = urlsplit(url)
        origin = f"{parts.scheme}://{parts.netloc}"
        if origin not in self.rules:
            response = get(self.proxy, origin + "/robots.txt")
            parser = None
            if response.status == 200:
                parser = urllib.robotparser.RobotFileParser()
                parser.parse(response.body.decode("utf-8", "replace").splitlines())
            self.rules[origin] = parser
        parser = self.rules[origin]
        return parser is None or parser.can_fetch("*", url)


def outcome(chain) -> dict:
    """Where a walk ended and, from what was served alone, why it is not a landing page (None if it is)."""
    urls = chain.urls
    end_url = chain.last.url if chain.hops else chain.blocked
    end_status = chain.last.status if chain.hops else None
    if chain.blocked:
        error = "robots"
    elif chain.too_many_redirects:
        error = "redirect-loop" if len(set(urls)) < len(urls) else "too-many-redirects"
    else:
        last = chain.last
        html = (last.headers.get("Content-Type") or "").startswith("text/html")
        if last.status == 403 and last.headers.get("cf-mitigated") == "challenge":
            error = "challenge"
        elif urlsplit(last.url).path == "/action/cookieAbsent":
            error = "cookie-required"
        elif html and b"window.location" in last.body and b"<article" not in last.body:
            error = "js-required"
        elif last.status >= 500:
            error = "http-5xx"
        elif last.status >= 400 and not (last.status == 401 and b"<article>" in last.body):
            error = "http-4xx"
        elif not html:
            error = "not-html"
        elif len(last.body) > MAX_BYTES:
            error = "too-large"
        else:
            error = None
    return {
        "final_url": end_url if error is None else None,
        "end_url": end_url,
        "end_status": end_status,
        "error": error,
    }


def walk(proxy, robots, url, cookies):
    return outcome(follow(proxy, url, cookies=cookies, meta_refresh=True, retries=RETRIES, allow=robots.allowed))


def landing_page(proxy, url):
    """The landing page's body as a browser that passed the cookie wall and the challenge would get it."""
    cookie = f"{scenarios.SESSION_COOKIE}; {scenarios.CLEARANCE_COOKIE}"
    for _ in range(RETRIES + 1):
        response = get(proxy, url, {"Cookie": cookie})
        if response.status not in RETRY_STATUSES:
            break
    return response


@pytest.fixture(scope="module", params=["mixed", "every"])
def case(request):
    """(proxy, truth records to walk): a random sample of the mixed world, or all of the every-scenario world."""
    if request.param == "mixed":
        sandbox = request.getfixturevalue("mixed_sandbox")
        candidates = [t for t in request.getfixturevalue("mixed_truth") if t["scenario"] not in SKIPPED]
        chosen = random.Random(20240607).sample(candidates, MIXED_SAMPLE)
        yield sandbox.proxy, chosen
    else:
        sandbox = RunningSandbox(request.getfixturevalue("every_scenario_world"))
        try:
            yield sandbox.proxy, [t for t in request.getfixturevalue("every_truth") if t["scenario"] not in SKIPPED]
        finally:
            sandbox.close()


def test_plain_client_ends_where_truth_says(case):
    proxy, chosen = case
    robots = Robots(proxy)
    wrong = []
    for truth in chosen:
        mine = walk(proxy, robots, truth["resource_url"], cookies=False)
        expected = {k: truth[k] for k in ("final_url", "end_url", "end_status", "error")}
        if mine != expected:
            wrong.append((truth["doi"], truth["scenario"], mine, expected))
    assert wrong == []


def test_cookie_keeping_client_ends_at_the_truths_cookie_final_url(case):
    proxy, chosen = case
    robots = Robots(proxy)
    wrong = []
    for truth in chosen:
        mine = walk(proxy, robots, truth["resource_url"], cookies=True)
        if (mine["final_url"], mine["error"]) != (truth["cookie_final_url"], truth["cookie_error"]):
            wrong.append((truth["doi"], truth["scenario"], mine, truth["cookie_final_url"], truth["cookie_error"]))
    assert wrong == []


def test_served_landing_pages_say_about_their_doi_what_truth_says(case):
    proxy, chosen = case
    fields = ("meta_tags", "meta_tag_correctness", "doi_in_meta_tags", "doi_in_hyperlinks", "doi_in_text")
    pages = [t for t in chosen if t["meta_tag_correctness"] is not None]
    assert len(pages) > len(chosen) // 2
    wrong = []
    for truth in pages:
        response = landing_page(proxy, truth["landing_url"])
        assert response.status in (200, 401), (truth["doi"], truth["scenario"], response.status)
        mine = reading.analyse(response.body, truth["doi"])
        expected = {k: truth[k] for k in fields}
        if mine != expected:
            wrong.append(
                (truth["doi"], truth["scenario"], {k: (mine[k], expected[k]) for k in fields if mine[k] != expected[k]})
            )
    assert wrong == []


def test_truth_covers_every_failure_class_the_walk_can_tell_apart(every_truth):
    errors = {t["error"] for t in every_truth}
    assert errors >= {
        None,
        "robots",
        "redirect-loop",
        "too-many-redirects",
        "challenge",
        "cookie-required",
        "js-required",
        "http-5xx",
        "http-4xx",
        "not-html",
        "too-large",
    }
