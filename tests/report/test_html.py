"""The report directory opened in the real Chromium the project drives (Playwright), as a reader would: no console
error and no failed request on any page, headings sort, boxes filter, member links resolve, images say what they
show, members are named, the find box finds them."""

from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

from tests.browser.probe import CHROMIUM, needs_chromium
from tests.report.building import HOSTILE

pytestmark = needs_chromium


@pytest.fixture(scope="module")
def report(artifacts) -> Path:
    return artifacts / "report"


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=["--no-sandbox", "--disable-background-networking"]
        )
        yield launched
        launched.close()


class Reader:
    """A page that records every console error, page error, failed request and dialog (a script a label ran)."""

    def __init__(self, browser):
        self.page, self.errors = browser.new_page(), []
        self.page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.on("requestfailed", lambda r: self.errors.append(f"request failed: {r.url[:80]}"))
        self.page.on("dialog", lambda d: (self.errors.append(f"dialog: {d.message}"), d.dismiss()))

    def open(self, path: Path):
        self.page.goto(path.as_uri())
        return self.page

    def column(self, table: str, n: int) -> list[str]:
        return self.page.eval_on_selector_all(
            f"#{table} tbody tr:not([hidden])", f"rows => rows.map(r => r.cells[{n}].textContent)"
        )


def _file(url: str) -> Path:
    return Path(unquote(urlsplit(url).path))


@pytest.fixture(scope="module")
def visited(report, browser) -> dict:
    """Every page of the report opened once: {path: (title, [(img alt, drawn)], [member page links])}, and errors."""
    reader, seen = Reader(browser), {}
    every = [report / f"{kind}{n}.html" for kind in ("members", "domains") for n in ("", "-1")]
    pages = [
        report / "index.html",
        *every,
        *sorted(report.glob("members/*.html")),
        *sorted(report.glob("domains/*.html")),
    ]
    for path in pages:
        page = reader.open(path)
        images = page.eval_on_selector_all("img", "imgs => imgs.map(i => [i.alt, i.complete && i.naturalWidth > 0])")
        links = page.eval_on_selector_all("a[href*='members/']", "as => as.map(a => a.href)")
        seen[path] = (page.title(), [tuple(i) for i in images], [_file(url) for url in links])
    return {"pages": seen, "errors": reader.errors}


def test_no_page_of_the_report_logs_a_console_error_or_makes_a_request_that_fails(visited):
    assert len(visited["pages"]) == 1 + 4 + 6 + 6 and visited["errors"] == []  # a CSP refusal is a console error


def test_clicking_a_heading_sorts_the_table_by_it_and_again_reverses(report, browser):
    reader = Reader(browser)
    page = reader.open(report / "index.html")
    worst = ["crossref/102", "crossref/105", "crossref/103", "crossref/101", "datacite/x.repo"]  # by ok % of DOIs
    assert reader.column("worst-members", 0) == worst
    page.click("#worst-members thead th:nth-child(3) button")  # DOIs
    assert reader.column("worst-members", 2) == ["5", "6", "7", "10", "10"]
    page.click("#worst-members thead th:nth-child(3) button")
    assert reader.column("worst-members", 2) == ["10", "10", "7", "6", "5"]
    page.click("#worst-members thead th:nth-child(2) button")  # name: as text
    assert reader.column("worst-members", 1) == sorted(reader.column("worst-members", 1), key=str.lower)
    page.fill("#worst-members-filter", "quay")  # filtering hides the rows without the text, the sort kept
    assert reader.column("worst-members", 0) == ["crossref/103"]
    page.fill("#worst-members-filter", "")
    assert len(reader.column("worst-members", 0)) == 5 and reader.errors == []


def test_every_link_to_a_member_page_resolves_to_that_members_page(report, visited):
    pages = visited["pages"]
    linked = {target for _, _, links in pages.values() for target in links}
    members = set(report.glob("members/*.html"))
    assert linked == members  # every member is linked to, and every link is to a page that exists
    for path in members:  # each opened with its member's key in its title, and no error (the test above)
        assert path.stem.replace("-", "/", 1) in pages[path][0]


def test_every_image_has_alt_text_that_says_what_it_shows_with_its_numbers(report, visited):
    images = [image for _, found, _ in visited["pages"].values() for image in found]
    assert images and all(drawn for _, drawn in images)
    alts = [alt for alt, _ in images]
    assert all(len(alt) > 30 and any(c.isdigit() for c in alt) and alt != "chart" for alt in alts)
    assert visited["pages"][report / "index.html"][1][0][0] == (
        "Meta-tag correctness of all 39 DOIs: ok 18 (46.2%), incorrect 3 (7.7%), missing 7 (17.9%), failed 11 (28.2%)."
    )


def test_the_index_names_members_by_name_and_shows_a_name_that_is_html_as_text(report, browser):
    reader = Reader(browser)
    reader.open(report / "index.html")
    names = reader.column("worst-members", 1)
    assert names == ["Orchid Riverside", HOSTILE, "Quay Books", "Harbour Lane Press", "X Repository"]
    assert reader.errors == []  # the name's onerror never ran: no dialog, no failed request for "x"


def test_a_members_page_shows_its_prefixes_domains_examples_and_own_trend(report, browser):
    reader = Reader(browser)
    page = reader.open(report / "members" / "crossref-103.html")
    assert page.title() == "Quay Books (crossref/103)"
    assert reader.column("crossref-103\\.prefixes", 0) == ["10.1003"]
    assert reader.column("crossref-103\\.domains", 0) == ["quay.example"]
    ended = reader.column("crossref-103\\.examples", 3)
    assert ended[0] == "incorrect" and set(ended) == {"incorrect", "ok"}  # what is wrong first
    assert reader.column("crossref-103\\.trend", 9) == ["0.0%", "57.1%"]  # ok % of DOIs: the fix shows
    assert reader.errors == []


def test_the_find_box_lists_members_whose_name_holds_the_text_and_shows_a_name_that_is_html_as_text(report, browser):
    reader = Reader(browser)
    page = reader.open(report / "members.html")
    page.fill("#find", "PRESS")
    found = page.eval_on_selector_all("#found a", "as => as.map(a => [a.textContent, a.getAttribute('href')])")
    assert found == [
        ["Harbour Lane Press (crossref/101)", "members/crossref-101.html"],
        ["Tiny Press (crossref/104)", "members/crossref-104.html"],
        [f"{HOSTILE} (crossref/105)", "members/crossref-105.html"],
    ]
    assert page.text_content("#found-count") == "3 found" and reader.errors == []
