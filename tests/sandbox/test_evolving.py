"""An evolving world served: each timeline event changes what the server answers from its moment on, not before."""

import json
import time
from datetime import timedelta
from urllib.parse import urlsplit

import pytest

from landing_dev.runner import SandboxProcess
from landing_dev.sandbox.generator import generate
from landing_dev.sandbox.server import RunningSandbox
from landing_dev.sandbox.timeline import moment
from tests.sandbox.client import get

START = moment("2030-01-01T00:00:00Z")


def _day(days: float) -> str:
    return (START + timedelta(days=days)).strftime("%Y-%m-%dT%H:%M:%SZ")


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    """A generated world and a hand-written timeline over four of its sites and one of its members."""
    directory = tmp_path_factory.mktemp("evolving")
    generate(directory, 600, seed=3)
    truth = [json.loads(line) for line in (directory / "truth.jsonl").read_text().splitlines()]
    picked, hosts = {}, []
    for record in truth:
        host = urlsplit(record["landing_url"] or "").hostname
        direct = record["scenario"] == "direct" and record["error"] is None and record["meta_tags"]
        if direct and host not in hosts and record["ra"] == "crossref" and len(hosts) < 4:
            hosts.append(host)
            picked[host] = record
    owners = {(r["ra"], r["member_id"]) for r in truth if urlsplit(r["landing_url"] or "").hostname in hosts}
    newcomer = next(r for r in truth if r["ra"] == "crossref" and (r["ra"], r["member_id"]) not in owners)
    repository = next(r for r in truth if r["ra"] == "datacite")["member_id"]
    moved, gone, down, tagless = hosts
    events = [
        {"at": _day(1), "kind": "down", "host": down, "how": "503"},
        {"at": _day(2), "kind": "up", "host": down},
        {"at": _day(3), "kind": "meta-tags-lost", "host": tagless},
        {"at": _day(5), "kind": "new-owner", "ra": "crossref", "owner": newcomer["member_id"]},
        {"at": _day(5), "kind": "new-owner", "ra": "datacite", "owner": repository},
        {"at": _day(6), "kind": "meta-tags-gained", "host": tagless},
        {"at": _day(10), "kind": "move", "host": moved, "to": "moved.platform1.example", "old": "redirect"},
        {"at": _day(10), "kind": "move", "host": gone, "to": "gone.platform2.example", "old": "gone"},
        {"at": _day(12), "kind": "down", "host": moved, "how": "refused"},
    ]
    (directory / "timeline.jsonl").write_text("".join(json.dumps(e) + "\n" for e in events))
    return directory, {host: picked[host] for host in hosts}, newcomer, repository


@pytest.fixture
def served(world):
    """served(days): the world served at that simulated day after START."""
    running = []

    def at(days):
        sandbox = RunningSandbox(world[0], now=lambda: START + timedelta(days=days))
        running.append(sandbox)
        return sandbox.proxy

    yield at
    for sandbox in running:
        sandbox.close()


def _site(world, index):
    host, record = list(world[1].items())[index]
    return host, record


def test_before_a_move_the_resolver_sends_a_doi_to_its_site_and_after_it_to_the_new_domain(world, served):
    host, record = _site(world, 0)
    before = get(served(9.9), "https://doi.org/" + record["doi"])
    after = get(served(10), "https://doi.org/" + record["doi"])
    assert urlsplit(before.location).hostname == host
    assert after.location == before.location.replace(host, "moved.platform1.example")


def test_a_moved_site_serves_the_same_page_on_its_new_domain(world, served):
    host, record = _site(world, 0)
    before = get(served(9), record["landing_url"])
    after = get(served(11), record["landing_url"].replace(host, "moved.platform1.example"))
    assert (before.status, after.status) == (200, 200)
    assert after.body == before.body.replace(host.encode(), b"moved.platform1.example")


def test_a_moved_sites_old_domain_redirects_to_the_new_one_or_stops_answering(world, served):
    (redirecting, record), (gone, other) = _site(world, 0), _site(world, 1)
    proxy = served(11)
    old = get(proxy, record["landing_url"])
    assert (old.status, old.location) == (301, record["landing_url"].replace(redirecting, "moved.platform1.example"))
    with pytest.raises(OSError, match="502"):  # the proxy cannot reach the old name: CONNECT fails
        get(proxy, other["landing_url"])
    assert get(proxy, other["landing_url"].replace(gone, "gone.platform2.example")).status == 200


def test_a_new_member_is_listed_and_resolves_only_from_its_moment(world, served):
    newcomer = world[2]
    for days, listed in ((4.9, False), (5, True)):
        proxy = served(days)
        members = json.loads(get(proxy, "http://api.crossref.org/members?rows=1000").body)["message"]["items"]
        assert (newcomer["member_id"] in {str(m["id"]) for m in members}) is listed
        assert get(proxy, f"http://api.crossref.org/members/{newcomer['member_id']}").status == (200 if listed else 404)
        assert get(proxy, "https://doi.org/" + newcomer["doi"]).status == (302 if listed else 404)


def test_a_new_members_dois_join_the_samples_only_from_its_moment(world, served):
    directory, newcomer = world[0], world[2]
    truth = [json.loads(line) for line in (directory / "truth.jsonl").read_text().splitlines()]
    held = sum(r["ra"] == "crossref" and r["member_id"] == newcomer["member_id"] for r in truth)
    query = f"http://api.crossref.org/works?filter=member:{newcomer['member_id']}&sample=100"
    assert json.loads(get(served(4), query).body)["message"]["items"] == []
    items = json.loads(get(served(6), query).body)["message"]["items"]
    assert len(items) == min(100, held)
    assert {w["member"] for w in items} == {newcomer["member_id"]}


def test_a_new_datacite_client_and_its_dois_are_listed_only_from_its_moment(world, served):
    repository = world[3]
    for days, listed in ((4.9, False), (5, True)):
        proxy = served(days)
        clients = json.loads(get(proxy, "http://api.datacite.org/clients?page[size]=1000").body)["data"]
        dois = json.loads(get(proxy, f"http://api.datacite.org/dois?client-id={repository}").body)["meta"]["total"]
        assert (repository in {c["id"] for c in clients}, dois > 0) == (listed, listed)


def test_a_site_answers_503_while_it_is_down_and_its_pages_again_once_up(world, served):
    host, record = _site(world, 2)
    assert [get(served(days), record["landing_url"]).status for days in (0.9, 1, 1.9, 2)] == [200, 503, 503, 200]


def test_a_site_that_refuses_connections_fails_its_connect_on_its_new_domain(world, served):
    host, record = _site(world, 0)
    with pytest.raises(OSError, match="502"):
        get(served(12), record["landing_url"].replace(host, "moved.platform1.example"))


def test_a_sites_pages_lose_their_doi_meta_tags_and_regain_them(world, served):
    host, record = _site(world, 3)
    name = record["meta_tags"][0][0]
    bodies = [get(served(days), record["landing_url"]).body for days in (2, 4, 7)]
    assert [f'name="{name}"'.encode() in body for body in bodies] == [True, False, True]


def test_scrapy_sandbox_serve_runs_an_evolving_world_on_the_clock_settings_it_is_given(world, tmp_path):
    # Two servers on one compressed clock (an hour a second), one started 20 simulated days earlier: no waiting.
    host, record = _site(world, 0)
    speed = 3600
    clock = {"LANDING_CLOCK": START.strftime("%Y-%m-%dT%H:%M:%SZ"), "LANDING_CLOCK_SPEED": speed}
    now = time.time()
    found = []
    for since in (now, now - 20 * 86400 / speed):
        with SandboxProcess(
            world[0], log=tmp_path / "serve.log", settings={**clock, "LANDING_CLOCK_SINCE": since}
        ) as sandbox:
            found.append(urlsplit(get(sandbox.proxy, "https://doi.org/" + record["doi"]).location).hostname)
    assert found == [host, "moved.platform1.example"]
