"""Write the report directory (index.html, members/<slug>.html, domains/<slug>.html, each table's CSV and JSON
beside its page) from a version's figures and its members' and domains' objects, streamed: memory holds one
member or domain at a time, the bounded index tables, and each member's few trend points.

The directory is written whole beside where it goes, then swapped in, so a reader sees the old report or the new,
never a mix.
"""

import os
import secrets
import shutil
import uuid
from collections.abc import Iterable
from pathlib import Path

from landing.core.publishing.report_rows import (
    DOMAIN_COLUMNS,
    MEMBER_COLUMNS,
    PREFIX_COLUMNS,
    by_member,
    domain_row,
    member_row,
    prefix_rows,
)
from landing.report import index
from landing.report.all_pages import Every
from landing.report.html import ASSETS
from landing.report.own_pages import domain_page, member_page, member_point
from landing.report.tables import Streamed, Tables

INDEX = "index.html"


class NotAReport(ValueError):
    """The place asked for holds something else than a report directory: never replaced."""


def draw(
    out,
    name: str,
    found: dict,
    changes: dict | None,
    points: list[dict],
    members: Iterable[dict] | None = None,
    domains: Iterable[dict] | None = None,
    history=None,
    alerts: Iterable[dict] = (),
    version: str | None = None,
) -> Path:
    """Draw the report directory at `out` (replacing the one there); its index.html. `history.get(member)` gives a
    member's trend points before this version (a dict will do). `name` titles it, `version`
    (default `name`) names the members' latest trend point. Without `members` only the index is drawn (a version
    written before members.jsonl.gz)."""
    out = Path(out)
    replaceable(out)
    work = _beside(out)
    try:
        nonce = secrets.token_urlsafe(18)  # a new one each draw: a label cannot guess it (the pages' CSP)
        for file_name, content in ASSETS.items():
            (work / file_name).write_text(content, encoding="utf-8")
        full = {}
        if members is not None:
            middles = found.get("member-medians") or {}
            full = _pages(work, version or name, members, domains or (), history or {}, alerts, nonce, middles)
        html, tables = index.render(name, found, changes, points, full, nonce)
        _page(work, INDEX, html, tables)
        swap(work, out)
    except BaseException:
        shutil.rmtree(work, ignore_errors=True)
        raise
    return out / INDEX


def replaceable(out: Path) -> None:
    """Refuse a place that holds something else than a report: a file, or a directory with files but no index."""
    if out.exists() and (not out.is_dir() or (any(out.iterdir()) and not (out / INDEX).is_file())):
        raise NotAReport(f"{out} is not a report directory (no {INDEX}): give a new or empty directory")


def point(source: Path, out: Path) -> Path:
    """Make `out` a symbolic link to a drawn report directory, swapped in with one rename (atomic: a reader opens the
    old report or the new one). A link, not a copy: a full run's directory holds hundreds of thousands of files,
    and copying and then deleting the old copy cost more than drawing it."""
    out = Path(out)
    if out.is_dir() and not out.is_symlink():  # a copy an earlier version of this code left: moved aside once
        replaceable(out)
        old = out.parent / f".{out.name}.{uuid.uuid4().hex[:12]}.old"
        os.rename(out, old)
        shutil.rmtree(old, ignore_errors=True)
    temporary = out.parent / f".{out.name}.{uuid.uuid4().hex[:12]}.link"
    os.symlink(os.path.relpath(source, out.parent), temporary)
    os.replace(temporary, out)
    return out / INDEX


def _beside(out: Path) -> Path:
    out.parent.mkdir(parents=True, exist_ok=True)
    work = out.parent / f".{out.name}.{uuid.uuid4().hex[:12]}.tmp"
    work.mkdir()
    return work


def swap(work: Path, out: Path) -> None:
    """Put `work` where `out` is: the old one moved aside in one rename, the new one in in the next, the old removed."""
    old = None
    if out.exists():
        old = out.parent / f".{out.name}.{uuid.uuid4().hex[:12]}.old"
        os.rename(out, old)
    os.rename(work, out)
    if old is not None and old.is_symlink():  # `out` was the link to a version's report: only the link goes
        old.unlink()
    elif old is not None:
        shutil.rmtree(old, ignore_errors=True)


def _page(directory: Path, file_name: str, html: str, tables: Tables) -> None:
    (directory / file_name).write_text(html, encoding="utf-8")
    for table_file, content in tables.files().items():
        (directory / table_file).write_text(content, encoding="utf-8")


def _pages(work: Path, name: str, members, domains, history, alerts, nonce: str, middles: dict) -> dict[str, int]:
    (work / "members").mkdir()
    (work / "domains").mkdir()
    full = {
        "members": Streamed(work, "members", MEMBER_COLUMNS),
        "prefixes": Streamed(work, "prefixes", PREFIX_COLUMNS),
        "domains": Streamed(work, "domains", DOMAIN_COLUMNS),
    }
    every = {
        "members": Every(work, "members", MEMBER_COLUMNS, "name", nonce),
        "domains": Every(work, "domains", DOMAIN_COLUMNS, None, nonce),
    }
    try:
        for member, alert in by_member(members, alerts):
            points = [*history.get(member["member"], ()), member_point(name, member)]
            middle = middles.get(member["member"].split("/", 1)[0])
            own, html, tables = member_page(member, points, alert, nonce, middle)
            _page(work / "members", f"{own}.html", html, tables)
            row = member_row(member)
            full["members"].add(row)
            every["members"].add(member["member"], row)
            for row in prefix_rows(member):
                full["prefixes"].add(row)
        for domain in domains:
            own, html, tables = domain_page(domain, nonce)
            _page(work / "domains", f"{own}.html", html, tables)
            row = domain_row(domain)
            full["domains"].add(row)
            every["domains"].add(domain["domain"], row)
    finally:
        for streamed in full.values():
            streamed.close()
        for listed in every.values():
            listed.close()
    return {kind: streamed.count for kind, streamed in full.items()}
