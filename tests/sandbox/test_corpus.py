"""Real captured pages served from the corpus (docs/testing.md "The corpus"), read where they lie."""

import json
from pathlib import Path

import pytest

from landing_dev.sandbox.corpus import FOLDER
from landing_dev.sandbox.generator import generate
from landing_dev.sandbox.http import Request
from landing_dev.sandbox.web import State, respond
from landing_dev.sandbox.world import World

CORPUS = FOLDER / "landing-pages"
pytestmark = pytest.mark.skipif(not CORPUS.is_dir(), reason=f"no landing-page corpus at {CORPUS}")


@pytest.fixture(scope="module")
def corpus_world(tmp_path_factory):
    directory = tmp_path_factory.mktemp("corpus")
    generate(directory, 20, seed=3, corpus=CORPUS)
    return directory


def _corpus_truth(directory):
    return [t for t in map(json.loads, open(directory / "truth.jsonl")) if t["scenario"] == "corpus"]


def test_corpus_world_registers_every_manifest_doi_once(corpus_world):
    manifest_dois = {
        line.split(",")[1].lower()
        for line in open(CORPUS / "manifest.csv")
        if line.split(",")[1] and not line.startswith("file,")
    }
    assert {t["doi"] for t in _corpus_truth(corpus_world)} == manifest_dois


def test_corpus_page_is_served_byte_for_byte_from_its_file(corpus_world):
    world = World(corpus_world)
    record = next(r for r in map(json.loads, open(corpus_world / "dois.jsonl")) if r.get("scenario") == "corpus")
    reply = respond(world, Request("GET", record["url"]), State())
    route = world.route(record["url"])
    assert reply.status == 200
    assert reply.body == Path(route["body_file"]).read_bytes()
    assert str(CORPUS.resolve()) in route["body_file"]


def test_corpus_doi_resolves_to_its_captured_page_url(corpus_world):
    world = World(corpus_world)
    truth = next(t for t in _corpus_truth(corpus_world) if t["doi"] == "10.7717/peerj.4886")
    reply = respond(world, Request("GET", "https://doi.org/10.7717/PEERJ.4886"), State())
    assert (reply.status, reply.header("Location")) == (302, "https://peerj.com/articles/4886")
    assert truth["final_url"] == "https://peerj.com/articles/4886"
    assert truth["corpus"]["doi_in_meta"] == "yes"


def test_corpus_is_never_copied_into_the_world(corpus_world):
    assert not any(p.suffix == ".html" for p in Path(corpus_world).rglob("*"))
