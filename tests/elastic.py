"""This test session's Elasticsearch stand-in (tests/elastic_standin.py), started on first use."""

import atexit

from elasticsearch import Elasticsearch

from tests.elastic_standin import StandIn

_running = {}
KINDS = ("pid", "snapshot", "analysis", "report", "run", "sample", "visit")


def standin() -> StandIn:
    if "server" not in _running:
        _running["server"] = StandIn().start()
        atexit.register(_running["server"].stop)
    return _running["server"]


def delete_indices(url: str, prefix: str, api_key: str | None = None) -> None:
    """Delete a test's indices by name: clusters refuse wildcard deletes by default."""
    with Elasticsearch(url, api_key=api_key) as client:
        client.indices.delete(index=",".join(f"{prefix}-{kind}" for kind in KINDS), ignore_unavailable=True)
