"""The report directory as files: each table beside its page as CSV and JSON, the version's copy at the top, the
directory replaced whole, never a directory that is not a report, `scrapy report -o DIR`."""

import csv
import json
import os
import re
import sys
from pathlib import Path

import pytest

from landing.core.publishing.report_figures import figures
from landing.publish import draw_beside, draw_version, publish
from landing.report.directory import NotAReport, draw
from landing.report.html import link
from tests import forked
from tests.browser.probe import ROOT
from tests.publish.test_publish import PLOS, store
from tests.report.building import HOSTILE

PAGED = re.compile(r"(members|domains)-1")
TABLE = re.compile(r'<table class=t id="([^"]+)"><thead>.*?</thead><tbody>(.*?)</tbody>', re.S)


def _scrapy_report(*args, tmp_path=None, docs=None, artifacts=None):
    command = [sys.executable, "-m", "scrapy", "report", *args]
    command += ["-s", f"LANDING_DOCS=sqlite:///{docs}", "-s", f"LANDING_ARTIFACTS_DIR={artifacts}"]
    return forked.run(command, ROOT, os.environ, timeout=120)  # Scrapy imported once: tests/forked.py


def test_every_table_of_every_page_is_beside_it_as_csv_and_json_with_the_same_rows(artifacts):
    report, checked = artifacts / "report", 0
    for page in report.rglob("*.html"):
        for table_id, body in TABLE.findall(page.read_text("utf-8")):
            rows = body.count("<tr>")
            if PAGED.fullmatch(table_id):  # a page of all members or domains: its rows are in the full table
                table_id, rows = table_id.split("-")[0], 6
            with open(page.parent / f"{table_id}.csv", encoding="utf-8", newline="") as said:
                assert len(list(csv.reader(said))) == rows + 1
            assert len(json.loads((page.parent / f"{table_id}.json").read_text("utf-8"))) == rows
            checked += 1
    assert checked > 30


def test_the_full_tables_beside_the_index_hold_every_member_prefix_and_domain_with_names(artifacts):
    report = artifacts / "report"
    members = json.loads((report / "members.json").read_text("utf-8"))
    assert [(m["member"], m["name"]) for m in members][:3] == [
        ("crossref/101", "Harbour Lane Press"),
        ("crossref/102", "Orchid Riverside"),
        ("crossref/103", "Quay Books"),
    ]
    assert len(members) == 6 and (report / "members.csv").read_text().count("\n") == 7
    assert len(json.loads((report / "prefixes.json").read_text())) == 6
    assert len(json.loads((report / "domains.json").read_text())) == 6


def test_a_domain_where_nothing_could_be_read_is_the_worst_and_listed_with_its_failures(artifacts):
    worst = json.loads((artifacts / "report" / "worst-domains.json").read_text("utf-8"))
    assert worst[0] == {
        "domain": "link.orchid-riverside-5.example",
        "dois": 10,
        "read": 0,
        "ok": 0,
        "incorrect": 0,
        "conflict": 0,
        "missing": 0,
        "failed": 10,
        "ok-of-dois": 0.0,
        "ok-share": None,
        "errors": "robots 10",
    }


def test_the_top_report_is_a_link_to_the_latest_versions_report_directory(artifacts):
    latest = sorted((artifacts / "versions").iterdir())[-1] / "report"
    top = artifacts / "report"
    assert top.is_symlink() and top.resolve() == latest.resolve() and (top / "index.html").is_file()
    assert os.readlink(top) == os.path.join("versions", latest.parent.name, "report")  # relative: the folder moves


def test_an_older_versions_report_is_left_an_index_without_member_or_domain_pages(artifacts):
    first, latest = sorted((artifacts / "versions").iterdir())
    assert sorted(p.name for p in (first / "report").iterdir() if p.is_dir()) == []
    assert "members/" not in (first / "report" / "index.html").read_text("utf-8")
    assert (latest / "report" / "members").is_dir()


def test_a_name_that_is_html_is_escaped_and_run_as_nothing(artifacts):
    page = (artifacts / "report" / "members" / "crossref-105.html").read_text("utf-8")
    assert "Evil &lt;img src=x onerror=&quot;alert(1)&quot;&gt; Press" in page and HOSTILE not in page


def test_drawing_again_replaces_the_directory_whole(tmp_path):
    with store(tmp_path / "docs.db", PLOS) as docs:
        version = Path(publish(docs, tmp_path / "artifacts")["version"])
    stale = tmp_path / "artifacts" / "report" / "members" / "crossref-999.html"
    stale.write_text("old")
    draw_version(tmp_path / "artifacts", version.name)
    assert not stale.exists() and (tmp_path / "artifacts" / "report" / "members" / "crossref-340.html").is_file()
    left = [p.name for d in (tmp_path / "artifacts", version) for p in d.iterdir() if p.name.startswith(".report")]
    assert left == []


def test_a_report_directory_left_at_the_top_by_a_copy_is_replaced_by_the_link(tmp_path):
    with store(tmp_path / "docs.db", PLOS) as docs:
        version = Path(publish(docs, tmp_path / "artifacts")["version"])
    top = tmp_path / "artifacts" / "report"
    top.unlink()
    top.mkdir()
    (top / "index.html").write_text("an older copy")
    draw_version(tmp_path / "artifacts", version.name)
    assert top.is_symlink() and "crossref/340" in (top / "index.html").read_text()


def test_a_members_file_that_cannot_be_read_is_said_naming_it_and_leaves_the_report_as_it_was(tmp_path):
    from landing.artifacts.artifact_files import ArtifactError

    with store(tmp_path / "docs.db", PLOS) as docs:
        version = Path(publish(docs, tmp_path / "artifacts")["version"])
    before = (version / "report" / "index.html").read_bytes()
    (version / "members.jsonl.gz").write_bytes(b"not gzip")
    with pytest.raises(ArtifactError, match="members.jsonl.gz"):
        draw_version(tmp_path / "artifacts", version.name)
    assert (version / "report" / "index.html").read_bytes() == before
    assert [p.name for p in version.iterdir() if p.name.startswith(".report")] == []


@pytest.mark.parametrize("kind", ["a directory of other files", "a file"])
def test_a_place_that_holds_something_else_than_a_report_is_never_replaced(tmp_path, kind):
    out = tmp_path / "mine"
    if kind == "a file":
        out.write_text("keep me")
    else:
        out.mkdir()
        (out / "thesis.tex").write_text("keep me")
    with pytest.raises(NotAReport, match="is not a report directory"):
        draw(out, "v", figures([]), None, [])
    assert (out.read_text() if kind == "a file" else (out / "thesis.tex").read_text()) == "keep me"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mine"]


def test_a_version_without_members_file_gets_an_index_with_no_member_links(tmp_path):
    found = figures(
        [
            {
                "report/kind": "member",
                "report/key": "crossref/1",
                "report/name": "One Press",
                "report/dois": 6,
                "report/correctness": {"ok": 1, "incorrect": 0, "conflict": 0, "missing": 5},
                "report/errors": {},
            }
        ]
    )
    page = draw(tmp_path / "report", "v1", found, None, []).read_text("utf-8")
    assert "<td class=x>One Press</td>" in page and "members/" not in page
    assert not (tmp_path / "report" / "members").exists()


def test_only_http_urls_are_links_out_of_the_report():
    assert link("https://a.example/x?y=<1>") == (
        '<a href="https://a.example/x?y=&lt;1&gt;" rel="noreferrer nofollow">https://a.example/x?y=&lt;1&gt;</a>'
    )
    assert link("javascript:alert(1)") == "javascript:alert(1)"


def test_labels_holding_control_or_bidi_characters_are_shown_escaped(tmp_path):
    found = figures(
        [
            {"report/kind": "domain", "report/key": key, "report/dois": 6, "report/errors": {"challenge": 6}}
            for key in ("a\u202ecred.example", "b\x1bcred.example")
        ]
    )
    page = draw(tmp_path / "report", "v1", found, None, []).read_text("utf-8")
    assert "a\\u202ecred.example" in page and "b\\x1bcred.example" in page
    assert "\u202e" not in page and "\x1b" not in page


def test_a_report_that_cannot_be_drawn_is_said_and_nothing_else_fails(tmp_path, caplog):
    version = tmp_path / "not-a-version"  # not under artifacts/versions/: the child finds no figures there
    version.mkdir()
    with caplog.at_level("WARNING", logger="landing.publish"):
        assert draw_beside(tmp_path / "artifacts", version, figures([])) is None
    assert "The HTML report of not-a-version could not be drawn" in caplog.text


def test_scrapy_report_draws_the_directory_of_the_store_and_says_where(artifacts, tmp_path):
    out = tmp_path / "mine"
    done = _scrapy_report("-o", str(out), docs=artifacts.parent / "docs.db", artifacts=artifacts)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout == f"report: {out / 'index.html'} (39 DOIs, 6 prefixes, 6 domains)\n"
    assert len(list((out / "members").glob("*.html"))) == 6 and "Harbour Lane Press" in (out / "index.html").read_text()


def test_scrapy_report_o_a_html_file_says_it_takes_a_directory(tmp_path):
    from argparse import Namespace

    from scrapy.exceptions import UsageError

    from landing.commands.report import Command

    with pytest.raises(UsageError, match="scrapy report -o takes a directory"):
        Command().run([], Namespace(member=None, output=str(tmp_path / "report.html")))
    assert list(tmp_path.iterdir()) == []


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
    done = _scrapy_report("-o", str(tmp_path / "report"), docs=tmp_path / "docs.db", artifacts=tmp_path / "artifacts")
    assert (done.returncode, done.stdout, len(done.stderr.splitlines())) == (2, "", 1)
    assert done.stderr.startswith(f"report: {version / 'changes.json'}: {said}")


def test_every_page_keeps_a_strict_csp_with_no_inline_script_style_or_style_attribute(artifacts):
    report = artifacts / "report"
    pages = list(report.rglob("*.html"))
    assert len(pages) > 13
    for path in pages:
        html = path.read_text("utf-8")
        policy = re.search(r'http-equiv="Content-Security-Policy" content="([^"]+)"', html).group(1)
        nonce = re.search(r"script-src 'nonce-([\w-]+)'", policy).group(1)
        assert "unsafe" not in policy and "style-src 'nonce-" + nonce in policy, path
        assert "<style" not in html and " style=" not in html, path
        scripts = re.findall(r"<script([^>]*)>", html)
        assert scripts and all(f'nonce="{nonce}"' in s and " src=" in s for s in scripts), path
    assert (report / "report.js").is_file() and (report / "report.css").is_file()


def test_scrapy_report_member_takes_a_name_or_a_part_of_one_case_aside(artifacts, capsys):
    from landing.commands.report import print_member

    assert print_member(artifacts, "quay  BOOKS") == 0
    assert capsys.readouterr().out.splitlines()[-1] == f"page: {artifacts / 'report' / 'members' / 'crossref-103.html'}"
    assert print_member(artifacts, "harbour lane") == 0
    assert capsys.readouterr().out.startswith("Crossref member 101 (Harbour Lane Press), version ")


def test_scrapy_report_member_names_every_member_a_name_matches_and_exits_2(artifacts, capsys):
    from landing.commands.report import print_member

    assert print_member(artifacts, "press") == 2
    assert capsys.readouterr().err == (
        "report: 'press' matches 3 members: crossref/101 (Harbour Lane Press), crossref/104 (Tiny Press),"
        f" crossref/105 ({HOSTILE}); give one as <ra>/<id> (crossref/340)\n"
    )


def test_a_members_page_shows_it_beside_the_median_member_of_its_agency(artifacts):
    html = (artifacts / "report" / "members" / "crossref-101.html").read_text("utf-8")
    head, *rows = re.findall(r"<tr>(.*?)</tr>", html.split('id="fix"')[0])[-4:]
    cells = [re.findall(r"<t[hd][^>]*>([^<]*)</t[hd]>", row) for row in rows]
    assert "the median of all 5 Crossref members" in head
    assert cells == [
        ["DOIs sampled", "10", "7"],
        ["ok % of DOIs", "80.0%", "57.1%"],
        ["ok % of read", "80.0%", "68.6%"],
    ]


def test_a_members_page_gives_each_share_with_its_sample_and_95_percent_interval(artifacts):
    html = (artifacts / "report" / "members" / "crossref-101.html").read_text("utf-8")
    assert "ok 80.0% of 10 (95% interval 49.0–94.3%) DOIs, 80.0% of 10 (95% interval 49.0–94.3%) pages read." in html
