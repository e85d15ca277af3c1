"""The mixed world, opened for the router directly: real-shaped API payloads without a server."""

import json

import pytest

from landing_dev.sandbox.http import Request
from landing_dev.sandbox.web import State, respond
from landing_dev.sandbox.world import World


@pytest.fixture(scope="module")
def world(mixed_world):
    opened = World(mixed_world)
    yield opened
    opened.close()


def dois_by_owner(directory, ra: str) -> dict:
    """{member or client id: its DOIs} of one registration agency, from the world's dois.jsonl."""
    found = {}
    with open(directory / "dois.jsonl", encoding="utf-8") as lines:
        for record in map(json.loads, filter(str.strip, lines)):
            if record["ra"] == ra:
                found.setdefault(str(record["member" if ra == "crossref" else "client"]), set()).add(
                    record["doi"].lower()
                )
    return found


def call(world, url, seed=3):
    reply = respond(world, Request("GET", url), State(seed=seed))
    assert reply.status == 200, reply.body[:300]
    return json.loads(reply.body)
