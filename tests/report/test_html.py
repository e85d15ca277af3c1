"""The HTML report opened in the real Chromium the project drives (Playwright): it renders, says nothing in the
console, and shows the figures the store holds."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from landing.core.report import figures
from landing.publish import publish
from tests.browser.probe import CHROMIUM, ROOT, needs_chromium
from tests.publish.test_publish import PLOS, TIMEOUT, ZENODO, store


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    root = tmp_path_factory.mktemp("report")
    with store(root / "docs.db", PLOS, ZENODO) as docs:
        publish(docs, root / "artifacts")
    with store(root / "docs.db", TIMEOUT) as docs:  # a second export: changes and a trend of two points
        summary = publish(docs, root / "artifacts")
        found = figures(docs.scan("report"))
    return root, summary, found


def _opened(path):
    """(visible text, console errors and page errors) of a file opened in Chromium."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=["--no-sandbox", "--disable-background-networking"]
        )
        try:
            page = browser.new_page()
            errors = []
            page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
            page.on("pageerror", lambda error: errors.append(str(error)))
            page.on("requestfailed", lambda request: errors.append(f"request failed: {request.url[:80]}"))
            page.goto(path.as_uri())
            images = page.eval_on_selector_all("img", "imgs => imgs.map(i => i.complete && i.naturalWidth > 0)")
            return page.inner_text("body"), errors, images
        finally:
            browser.close()


@needs_chromium
def test_the_report_exported_with_each_version_opens_in_chromium_without_errors_and_shows_the_stores_figures(exported):
    root, summary, found = exported
    assert summary["report"] == str(root / "artifacts" / "report.html")
    text, errors, images = _opened(root / "artifacts" / "report.html")
    assert errors == []
    assert images and all(images)  # every chart drawn and decoded
    totals = found["totals"]
    assert f"DOIs\t{totals['dois']}" in text and f"prefixes\t{totals['prefixes']}" in text
    assert f"domains\t{totals['domains']}" in text
    assert "journals.plos.org" in text and "10.5555" in text  # a domain, and a prefix with no good domain
    assert "Correctness over runs" in text and "no trend yet" not in text


def test_each_version_keeps_its_figures_and_report_beside_its_files(exported):
    root, _, found = exported
    versions = sorted((root / "artifacts" / "versions").iterdir())
    assert [sorted(p.name for p in v.iterdir() if p.name.startswith("report")) for v in versions] == [
        ["report.html", "report.json"]
    ] * 2
    assert json.loads((versions[-1] / "report.json").read_text())["totals"] == found["totals"]


def test_scrapy_report_writes_the_report_of_the_store_and_says_where(exported, tmp_path):
    root, _, found = exported
    out = tmp_path / "mine.html"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "scrapy",
            "report",
            "-o",
            str(out),
            "-s",
            f"LANDING_DOCS=sqlite:///{root / 'docs.db'}",
            "-s",
            f"LANDING_ARTIFACTS_DIR={root / 'artifacts'}",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        env=os.environ,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.startswith(f"report: {out} ({found['totals']['dois']} DOIs")
    assert "<h2>Totals</h2>" in out.read_text()


def test_tables_read_their_columns_by_name_after_the_figures_went_through_json():
    from landing.report.html import render

    found = json.loads(
        json.dumps(
            figures(
                [
                    {
                        "report/kind": "domain",
                        "report/key": "x.example",
                        "report/dois": 10,
                        "report/correctness": {"ok": 8, "incorrect": 0, "conflict": 0, "missing": 2},
                        "report/errors": {},
                    }
                ]
            ),
            sort_keys=True,
        )
    )
    page = render(found)
    assert "<td>x.example</td><td>10</td><td>80%</td><td>8</td><td>0</td><td>0</td><td>2</td>" in page


def test_a_report_that_cannot_be_drawn_is_said_and_nothing_else_fails(tmp_path, caplog):
    from landing.publish import draw_beside

    version = tmp_path / "not-a-version"  # not under artifacts/versions/: the child finds no figures there
    version.mkdir()
    with caplog.at_level("WARNING", logger="landing.publish"):
        assert draw_beside(tmp_path / "artifacts", version, figures([])) is None
    assert "The HTML report of not-a-version could not be drawn" in caplog.text


def _hostile(keys):
    """Figures whose domain and member keys are `keys`, every one with a failed visit (so every chart names them)."""
    made = []
    for key in keys:
        for kind in ("domain", "member"):
            made.append(
                {
                    "report/kind": kind,
                    "report/key": key,
                    "report/dois": 6,
                    "report/correctness": {"ok": 1, "incorrect": 0, "conflict": 0, "missing": 4},
                    "report/errors": {"challenge": 1},
                }
            )
    return json.loads(json.dumps(figures(made)))


MATHTEXT = ["$a__b$.evil.example", "$\\foo$", "$" + "{" * 200 + "}" * 200 + "$"]


def test_labels_that_read_as_mathtext_are_drawn_as_plain_text():
    from landing.report.html import render

    page = render(_hostile(MATHTEXT))
    assert page.count('<img alt="chart"') == 3  # members, domains, failure classes per domain
    assert all(f"<td>{key}</td>" in page for key in MATHTEXT)


def test_labels_holding_control_or_bidi_characters_are_shown_escaped():
    from landing.report.html import render

    page = render(_hostile(["a\u202ecred.example", "b\x1bcred.example"]))
    assert "<td>a\\u202ecred.example</td>" in page and "<td>b\\x1bcred.example</td>" in page
    assert "\u202e" not in page and "\x1b" not in page


def test_the_first_versions_changes_are_titled_as_the_first_version():
    from landing.report.html import render

    first = {"from": None, "to": "20261125T165854Z", "pairs": [], "prefixes": {"appeared": [], "disappeared": []}}
    page = render(figures([]), first)
    assert "<h2>Changes in the first version (20261125T165854Z)</h2>" in page and "None" not in page


def test_the_report_of_a_version_whose_labels_read_as_mathtext_is_written(tmp_path):
    from landing.artifacts.files import export
    from landing.core.artifacts import Artifacts
    from landing.publish import draw_beside

    version = export(tmp_path, Artifacts(prefixes=frozenset({("10.1", "crossref")})))
    assert draw_beside(tmp_path, version, _hostile(MATHTEXT)) == tmp_path / "report.html"
    assert "<td>$a__b$.evil.example</td>" in (version / "report.html").read_text()


@pytest.mark.parametrize(
    "content, said",
    [
        (b"[" * 100_000, "nested too deeply to read"),
        (b"\xff", "not UTF-8"),
        (b"{", "not JSON"),
        (b"[]", "not an object"),
    ],
    ids=["nested-100000-deep", "not-utf-8", "not-json", "not-an-object"],
)
def test_scrapy_report_on_a_version_whose_changes_cannot_be_read_says_so_in_one_line_and_exits_2(
    tmp_path, content, said
):
    with store(tmp_path / "docs.db", PLOS) as docs:
        version = Path(publish(docs, tmp_path / "artifacts", report=False)["version"])
    (version / "changes.json").write_bytes(content)
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "scrapy",
            "report",
            "-o",
            str(tmp_path / "report.html"),
            "-s",
            f"LANDING_DOCS=sqlite:///{tmp_path / 'docs.db'}",
            "-s",
            f"LANDING_ARTIFACTS_DIR={tmp_path / 'artifacts'}",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        env=os.environ,
    )
    assert (done.returncode, done.stdout, len(done.stderr.splitlines())) == (2, "", 1)
    assert done.stderr.startswith(f"report: {version / 'changes.json'}: {said}")
