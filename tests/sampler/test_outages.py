"""A resolver outage during a crawl costs no DOI (issue 42): its requests back off (landing.crawl.retry), a probe at a
time, and every DOI is visited once the resolver is back.

One crawl of six DOIs, the resolver down (503) once three requests went through it, and back only once one URL is
asked of it a (RETRY_TIMES+2)-th time: the outage outlasts that DOI's own RETRY_TIMES retries by construction, not by
timing, so only retries past them get every DOI visited. A crawl that gave up after RETRY_TIMES leaves the resolver
down (LONGEST) and its DOIs unvisited. The crawl is idle while it waits (a probe every 0.5-1 s): about 10 s of wall.
"""

import json
import re
import sqlite3
from collections import Counter

import pytest

from landing import settings as defaults
from landing_dev.sandbox.server import RunningSandbox
from tests import forked
from tests.sampler.crawling import PROJECT, Stores

DOIS = {f"10.99007/out{i}": f"https://pub{i % 3}.example/article/{i}" for i in range(6)}
LONGEST = 120  # seconds the resolver stays down if no URL is asked of it past RETRY_TIMES
BACKOFF_MAX = 1  # seconds: a failing host's longest pause (LANDING_BACKOFF_MAX), its least
BEFORE = 3  # resolver requests answered before the outage begins


def _page(doi):
    return f'<html><head><meta name="citation_doi" content="{doi}"><title>t</title></head><body>.</body></html>'


def _world(root):
    root.mkdir()
    members = [{"id": "1", "primary-name": "Outage Press", "prefixes": ["10.99007"]}]
    (root / "world.json").write_text(json.dumps({"format": "landing-sandbox/1", "members": members}))
    (root / "dois.jsonl").write_text(
        "".join(json.dumps({"doi": d, "ra": "crossref", "member": "1", "url": u}) + "\n" for d, u in DOIS.items())
    )
    routes = [{"url": url, "body": _page(doi)} for doi, url in DOIS.items()]
    (root / "routes.jsonl").write_text("".join(json.dumps(route) + "\n" for route in routes))
    return root


def _docs(db, kind) -> list[dict]:
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as con:
        return [json.loads(doc) for (doc,) in con.execute("SELECT doc FROM docs WHERE kind = ?", (kind,))]


def _stat(log: str, name: str) -> int:
    found = re.search(rf"'{re.escape(name)}': (\d+)", log)
    return int(found.group(1)) if found else 0


@pytest.fixture(scope="module")
def outage(tmp_path_factory):
    root = tmp_path_factory.mktemp("outage")
    stores = Stores(root / "stores")
    answered, refused = [], Counter()  # the resolver's requests before its outage; each URL's refusals in it
    holder = {"down": False}

    def watch(request):  # on the sandbox's loop, before the answer: down as the BEFORE+1-th request reaches it
        if request.host != "doi.org":
            return
        server = holder["sandbox"].server
        if holder["down"] and refused[request.url] > defaults.RETRY_TIMES:  # a try past the URL's own retries
            server.take_down("doi.org", 0)
            holder["down"] = False
        elif holder["down"]:
            refused[request.url] += 1
        elif not refused and len(answered) == BEFORE:
            server.take_down("doi.org", LONGEST, how="503")
            holder["down"] = True
            refused[request.url] += 1
        else:
            answered.append(request.url)

    sandbox = holder["sandbox"] = RunningSandbox(_world(root / "world"), watch=watch)
    settings = ["-s", "LANDING_SOURCES=crossref", "-s", "LANDING_DRIVER=http"]
    settings += ["-s", f"LANDING_BACKOFF_MAX={BACKOFF_MAX}"]
    try:
        done = forked.run(stores.crawl_command(sandbox.proxy, *settings), PROJECT, stores.env, timeout=300)
    finally:
        sandbox.close()
    return done, stores.root / "landing.db"


def test_a_resolver_outage_longer_than_a_dois_retries_loses_no_doi(outage):
    done, db = outage
    assert done.returncode == 0, done.stderr[-3000:]
    assert sorted(doc["pid/doi"] for doc in _docs(db, "visit")) == sorted(DOIS)
    assert {doc["pid/doi"]: doc["snapshot/error"] for doc in _docs(db, "snapshot")} == dict.fromkeys(DOIS)
    assert [run["run/state"] for run in _docs(db, "run")] == ["finished"]


def test_the_resolver_outage_was_outlived_by_retries_past_retry_times(outage):
    done, _ = outage
    assert _stat(done.stderr, "landing/backoff/outages") >= 1, done.stderr[-3000:]
    assert _stat(done.stderr, "landing/backoff/outage_retries") >= 1, done.stderr[-3000:]
