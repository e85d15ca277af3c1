"""landing.core.pages.analysis against the sandbox truth: analyse() must reach, from the HTML, what the truth says from
the page specs."""

import json

from landing.core.pages.page import Page
from landing_dev.sandbox.http import Request
from landing_dev.sandbox.web import State, respond
from landing_dev.sandbox.world import World

TRUTH_FIELDS = {
    "meta_tag_correctness": "analysis/meta-tag-correctness",
    "doi_in_text": "analysis/doi-in-text",
    "doi_in_hyperlinks": "analysis/doi-in-hyperlinks",
    "doi_in_meta_tags": "analysis/doi-in-meta-tags",
    "meta_tags": "analysis/meta-tags",
}
RETRIED = (429, 500, 502, 503, 504)  # fail_first routes answer these before the page


def landing_pages(directory):
    """(truth record, body, content type) of every DOI whose landing page a plain HTTP client reaches."""
    world = World(directory)
    try:
        with open(directory / "truth.jsonl", encoding="utf-8") as lines:
            for record in map(json.loads, lines):
                if record["final_url"] is None or record["meta_tag_correctness"] is None:
                    continue
                state = State()
                reply = respond(world, Request("GET", record["final_url"]), state)
                for _ in range(3):
                    if reply.status not in RETRIED:
                        break
                    reply = respond(world, Request("GET", record["final_url"]), state)
                yield record, reply.body, reply.header("Content-Type")
    finally:
        world.close()


def disagreements(directory) -> tuple[list, set]:
    wrong, scenarios = [], set()
    for record, body, content_type in landing_pages(directory):
        scenarios.add(record["scenario"])
        result = Page(body, content_type).analysis(record["doi"])
        got = {field: result[key] for field, key in TRUTH_FIELDS.items()}
        want = {field: record[field] for field in TRUTH_FIELDS}
        if got != want:
            wrong.append((record["scenario"], record["doi"], {f: (got[f], want[f]) for f in got if got[f] != want[f]}))
    return wrong, scenarios


PAGE_SCENARIOS = {
    "direct",
    "bad-charset",
    "meta-conflict",
    "meta-missing",
    "link-only",
    "text-only",
    "reference-trap",
    "placeholder-doi",
    "tracking-params",
    "multi-hop",
    "meta-refresh",
    "unauthorized-page",
}


def test_analyse_agrees_with_the_truth_on_every_scenario_landing_page(every_scenario_world):
    wrong, scenarios = disagreements(every_scenario_world)
    assert (wrong, PAGE_SCENARIOS - scenarios) == ([], set())


def test_analyse_agrees_with_the_truth_on_a_mixed_world(mixed_world):
    wrong, scenarios = disagreements(mixed_world)
    assert (wrong, len(scenarios) > 5) == ([], True)
