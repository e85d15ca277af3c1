"""landing.report.all_pages at scale: a 2,000-member report drawn from synthetic objects (no crawl), its link graph
read from the written HTML, and Chromium for what only a browser shows: the index's open time and the find box."""

import re
from pathlib import Path
from urllib.parse import unquote

import pytest

from landing.core.publishing.report_figures import figures
from landing.report.directory import draw
from tests.browser.probe import CHROMIUM, needs_chromium

MEMBERS, SHARING = 2000, 10  # members, and members a domain (platform hosts are shared): 200 domains
SOUGHT = 1234  # the member whose name is typed in the find box
HREF = re.compile(r'href="([^"#?]+\.html)"')


def _name(n: int) -> str:
    return "Lantern Quay Scholarly Press" if n == SOUGHT else f"Publisher {n:04d} of Learned Works"


def _counts(n: int) -> dict:
    ok = n % 8
    return {"ok": ok, "incorrect": 0, "conflict": 0, "missing": 7 - ok}


def _member(n: int) -> dict:
    ra = "datacite" if n % 10 == 0 else "crossref"
    key, domain, counts = f"{ra}/{n:04d}", f"host-{n // SHARING:03d}.example", _counts(n)
    figures_of = {"dois": 7, "read": 7, "correctness": counts, "errors": {}, "failed": 0, "ok-share": counts["ok"] / 7}
    return {
        "member": key,
        "ra": ra,
        "id": f"{n:04d}",
        "name": _name(n),
        "provider": None,
        **figures_of,
        "prefixes": [{"prefix": f"10.{10000 + n}", **figures_of, "good-domains": [], "bad-domains": [domain]}],
        "domains": [{"domain": domain, **figures_of, "wrong-example": None}],
        "domains-total": 1,
        "examples": [],
    }


def _domains(members: list[dict]) -> list[dict]:
    by: dict[str, list[dict]] = {}
    for m in members:
        by.setdefault(m["domains"][0]["domain"], []).append(m)
    made = []
    for _, here in sorted(by.items()):
        who = [
            {"member": m["member"], "name": m["name"], "dois": 7, "prefixes": [m["prefixes"][0]["prefix"]]}
            for m in here
        ]
        made.append({**here[0]["domains"][0], "dois": 7 * len(here), "members": who, "members-total": len(here)})
    return made


def _reports(members: list[dict], domains: list[dict]):
    for m in members:
        said = {"report/dois": 7, "report/correctness": m["correctness"], "report/errors": {}}
        yield {"report/kind": "member", "report/key": m["member"], "report/name": m["name"], **said}
    for d in domains:
        yield {"report/kind": "domain", "report/key": d["domain"], "report/dois": d["dois"], "report/errors": {}}


@pytest.fixture(scope="module")
def report(tmp_path_factory) -> Path:
    members = sorted((_member(n) for n in range(MEMBERS)), key=lambda m: m["member"])
    domains, out = _domains(members), tmp_path_factory.mktemp("every") / "report"
    draw(out, "v1", figures(_reports(members, domains)), None, [], members, domains)
    return out


def _reachable(index: Path) -> tuple[set[Path], set[Path]]:
    """(every page reached from the index by following links, every link to no file), read from the written HTML."""
    seen, broken, todo = {index}, set(), [index]
    while todo:
        here = todo.pop()
        for target in HREF.findall(here.read_text("utf-8")):
            path = (here.parent / unquote(target)).resolve()
            if not path.is_file():
                broken.add(path)
            elif path not in seen:
                seen.add(path)
                todo.append(path)
    return seen, broken


def test_every_member_and_domain_page_is_reachable_by_links_from_the_index_and_no_link_is_broken(report):
    pages = {p.resolve() for kind in ("members", "domains") for p in (report / kind).glob("*.html")}
    reached, broken = _reachable(report / "index.html")
    assert len(pages) == MEMBERS + MEMBERS // SHARING
    assert pages <= reached and broken == set()
    assert {p.name for p in reached} >= {"members.html", "members-1.html", "members-2.html", "domains-1.html"}


@needs_chromium
def test_the_index_opens_in_under_2_s_and_a_name_typed_in_its_find_box_finds_its_member(report):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=["--no-sandbox"])
        page, errors = browser.new_page(), []
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.goto((report / "index.html").as_uri())
        loaded = page.evaluate("performance.getEntriesByType('navigation')[0].loadEventEnd")
        page.fill("#find-member", "lantern quay")
        page.press("#find-member", "Enter")
        page.wait_for_selector("#found li a")
        found = page.eval_on_selector_all("#found li a", "as => as.map(a => a.textContent)")
        page.click("#found li a")
        page.wait_for_load_state()
        title = page.title()
        browser.close()
    assert loaded < 2000
    assert found == [f"Lantern Quay Scholarly Press (crossref/{SOUGHT:04d})"]
    assert title == f"Lantern Quay Scholarly Press (crossref/{SOUGHT:04d})" and errors == []
