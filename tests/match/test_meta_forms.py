"""Every DOI meta name and every value form a page may use is read by the matcher and checked exactly.

A hand-written world: one page per meta tag, on a host whose URLs hold no DOI, so only the meta tag can
tell the matcher which DOI the page is about; the resolver leads each DOI back to its page.
"""

import json

import pytest

from landing.core.pages.analysis import DOI_META_NAMES
from landing_dev.sandbox.platforms import VALUE_FORMS, doi_value
from landing_dev.sandbox.server import RunningSandbox
from tests.sampler.crawling import Stores

HOST = "https://pages.meta-forms.example"


def _tags():
    """(attributes of the one meta tag, DOI): every name (in a mixed case) and every value form at least once."""
    names = sorted(DOI_META_NAMES)
    for i, name in enumerate(names):
        doi = f"10.99003/meta.{i}"
        yield (
            {"name": name.upper() if i % 2 else name, "content": doi_value(doi, VALUE_FORMS[i % len(VALUE_FORMS)])},
            doi,
        )
    yield {"property": "citation_doi", "content": doi_value("10.99003/meta.p", "https-doi")}, "10.99003/meta.p"
    yield {"id": "DOI", "content": "10.99003/meta.d"}, "10.99003/meta.d"


@pytest.fixture(scope="module")
def meta_world(tmp_path_factory):
    directory = tmp_path_factory.mktemp("meta-forms")
    tags = list(_tags())
    (directory / "world.json").write_text(
        json.dumps(
            {
                "format": "landing-sandbox/1",
                "members": [{"id": "9003", "primary-name": "Meta Forms Press", "prefixes": ["10.99003"]}],
                "clients": [],
            }
        )
    )
    with open(directory / "dois.jsonl", "w") as dois, open(directory / "routes.jsonl", "w") as routes:
        for n, (tag, doi) in enumerate(tags):
            url = f"{HOST}/item/{n}"
            dois.write(json.dumps({"doi": doi, "ra": "crossref", "member": "9003", "url": url}) + "\n")
            routes.write(
                json.dumps({"url": url, "page": {"title": f"Item {n}", "meta": [tag], "seed": n, "paragraphs": 1}})
                + "\n"
            )
    return directory, tags


def test_every_meta_name_and_value_form_is_matched_by_checking_the_url(meta_world, tmp_path):
    directory, tags = meta_world
    assert {VALUE_FORMS[i % len(VALUE_FORMS)] for i in range(len(DOI_META_NAMES))} == set(VALUE_FORMS)
    sandbox = RunningSandbox(directory)
    try:
        inputs = [f"{HOST}/item/{n}" for n in range(len(tags))]
        # --fetch-all: no artifact names the host, and only its pages say which DOI they are about.
        overrides = ["-s", f"LANDING_SANDBOX={sandbox.proxy}"]
        done = Stores(tmp_path).scrapy("match", "--fetch-all", *inputs, overrides=overrides)
    finally:
        sandbox.close()
    assert done.returncode == 0, done.stderr[-2000:]
    got = [(r["doi"], r["method"], r["verification"]) for r in map(json.loads, done.stdout.splitlines())]
    assert got == [(doi, "landing-page-meta-tag", "checked-url-exact") for _, doi in tags]


SICI = "10.1002/(SICI)1097-4636(199706)35:4<447::AID-JBM5>3.0.CO;2-G"
SICI_URL = "https://onlinelibrary.sici.example/doi/10.1002/(SICI)1097-4636(199706)35:4%3C447::AID-JBM5%3E3.0.CO;2-G"


def test_a_sici_doi_in_a_landing_page_url_is_found_and_checked_exactly(tmp_path):
    world = tmp_path / "sici"
    world.mkdir()
    (world / "world.json").write_text(
        json.dumps(
            {
                "format": "landing-sandbox/1",
                "members": [{"id": "311", "primary-name": "Wiley-like", "prefixes": ["10.1002"]}],
                "clients": [],
            }
        )
    )
    (world / "dois.jsonl").write_text(
        json.dumps({"doi": SICI, "ra": "crossref", "member": "311", "url": SICI_URL}) + "\n"
    )
    (world / "routes.jsonl").write_text(json.dumps({"url": SICI_URL, "page": {"title": "SICI", "seed": 1}}) + "\n")
    sandbox = RunningSandbox(world)
    try:
        overrides = ["-s", f"LANDING_SANDBOX={sandbox.proxy}"]  # --fetch-all: no artifact names the host
        done = Stores(tmp_path).scrapy("match", "--fetch-all", SICI_URL, overrides=overrides)
    finally:
        sandbox.close()
    got = json.loads(done.stdout)
    assert (got["doi"], got["method"], got["verification"]) == (SICI.lower(), "landing-page-url", "checked-url-exact")
