"""The report's index.html: run details, totals, definitions, the worst members, prefixes and domains by share,
the largest members, prefixes with no good domain, changes and trends, each table bounded (the full ones beside)."""

from html import escape

from landing.core.publishing.changes import news
from landing.core.publishing.report_figures import WORST_MIN_DOIS, share
from landing.core.publishing.report_keys import CORRECTNESS
from landing.core.publishing.report_rows import (
    CHANGE_COLUMNS,
    CORRECTNESS_COLOURS,
    CORRECTNESS_MEANINGS,
    DOMAIN_COLUMNS,
    FAILURE_COLOURS,
    FAILURE_MEANINGS,
    MEMBER_COLUMNS,
    PREFIX_COLUMNS,
    SHARE_MEANINGS,
    TREND_COLUMNS,
    change_rows,
    counted,
    errors_said,
)
from landing.report.charts import bar, trend
from landing.report.html import page, section, text
from landing.report.tables import Tables

CHANGES_SHOWN = 200  # rows of the changes table on the index (all in changes.csv)
FULL = {"members": "every member", "prefixes": "every prefix", "domains": "every domain"}


def _member(row: dict) -> dict:
    return {"member": row["key"], "name": row.get("name"), **counted(row)}


def _prefix(row: dict) -> dict:
    return {"prefix": row["key"], "member": row.get("member"), "name": row.get("name"), **counted(row)}


def _domain(row: dict) -> dict:
    return {"domain": row["key"], **counted(row), "errors": errors_said(row.get("errors") or {})}


def _linked(columns: list, pages: bool) -> list:
    """Columns as shown: a member or domain links to its page only when the pages were drawn."""
    return (
        columns
        if pages
        else [(k, h, "text" if kind in ("member", "member-name", "domain") else kind) for k, h, kind in columns]
    )


def correctness_bar(what: str, counts: dict) -> str:
    parts = [(name, counts.get(name, 0)) for name in CORRECTNESS] + [("failed", counts.get("failed", 0))]
    return bar(what, parts, CORRECTNESS_COLOURS)


def failures_bar(what: str, errors: dict) -> str:
    return bar(what, sorted(errors.items(), key=lambda item: (-item[1], item[0])), FAILURE_COLOURS)


def trend_section(points: list[dict], tables: Tables, table_id: str = "trend") -> str:
    """The ok shares over versions (from 0 to 100%, each with its sample size), and their table."""
    if len(points) < 2:
        return "<p class=note>One version so far: no trend yet.</p>"
    rows = [{"version": p["version"], **counted(p)} for p in points]
    versions = [row["version"] for row in rows]
    chart = trend(
        "Share of ok meta tags",
        [
            ("ok % of read", CORRECTNESS_COLOURS["ok"], [(row["ok-share"], row["read"]) for row in rows]),
            ("ok % of DOIs", CORRECTNESS_COLOURS["ok"], [(row["ok-of-dois"], row["dois"]) for row in rows]),
        ],
        versions,
    )
    return chart + tables.add(table_id, "Correctness per version", TREND_COLUMNS, rows)


def _run(name: str, run: dict | None, totals: dict) -> str:
    rows = [("version", name), ("DOIs in the report", f"{totals['dois']:,}")]
    if run:
        planned = run.get("dois-planned")
        rows += [
            ("run", run.get("id")),
            ("started", run.get("started")),
            ("last updated", run.get("updated")),
            ("state", f"{run.get('state')} ({run.get('mode')} run)"),
            ("sources", ", ".join(run.get("sources") or []) or "–"),
            ("owners sampled (members and clients)", f"{run['owners']:,}" if run.get("owners") is not None else "–"),
            ("sample size (DOIs planned)", f"{planned:,}" if planned is not None else "–"),
        ]
    else:
        rows.append(("run", "no run document in the store (reports made by scrapy artifacts or loaded)"))
    return (
        "<table>"
        + "".join(f"<tr><th class=x>{text(k)}</th><td class=x>{text(v)}</td></tr>" for k, v in rows)
        + "</table>"
    )


def _definitions() -> str:
    said = "".join(f"<dt>{escape(k)}</dt><dd>{escape(v)}</dd>" for k, v in CORRECTNESS_MEANINGS.items())
    said += "".join(f"<dt>{escape(k)}</dt><dd>{escape(v)}</dd>" for k, v in SHARE_MEANINGS.items())
    failures = "".join(f"<dt>{escape(k)}</dt><dd>{escape(v)}</dd>" for k, v in FAILURE_MEANINGS.items())
    return (
        "<p>Each sampled DOI was resolved and followed to its landing page. A page that was read is counted by what"
        " its DOI meta tags (citation_doi, dc.identifier, prism.doi...) say:</p>"
        f"<dl>{said}</dl><p>A visit that read no page ended in one failure class:</p><dl>{failures}</dl>"
        f"<p class=note>The tables of the worst rank by ok % of DOIs, lowest first, among keys with {WORST_MIN_DOIS}"
        " DOIs or more (all of them are in the full tables), so a domain where nothing could be read is listed"
        " with its failures.</p>"
    )


def render(name: str, found: dict, changes: dict | None, points: list[dict], full: dict[str, int], nonce: str) -> tuple:
    """(index.html, its Tables): `found` the version's figures, `full` the full tables written beside
    (name → rows; empty when the version has no members.jsonl.gz, so there are no member or domain pages)."""
    totals, tables, pages = found["totals"], Tables(), bool(full)
    counts = {**totals["correctness"], "failed": totals.get("failed", sum(totals["errors"].values()))}
    read = totals.get("read", sum(totals["correctness"].values()))

    def everything(kind: str) -> str:
        if kind not in full:
            return ""
        shown = f'<a href="{kind}.html">pages</a> · ' if kind in ("members", "domains") else ""
        return f'{FULL[kind]} ({full[kind]:,}): {shown}<a href="{kind}.csv">CSV</a> · <a href="{kind}.json">JSON</a>; '

    sections = [
        ("run", "Run details", _run(name, found.get("run"), totals)),
        *([("look-up", "Find a member or domain", _find(full))] if pages else []),
        (
            "totals",
            "Totals",
            "<table>"
            + "".join(
                f"<tr><th class=x>{k}</th><td>{v:,}</td></tr>"
                for k, v in [
                    ("DOIs", totals["dois"]),
                    ("pages read", read),
                    ("visits failed", counts["failed"]),
                    ("members and clients", totals["members"]),
                    ("prefixes", totals["prefixes"]),
                    ("domains", totals["domains"]),
                    ("prefixes with no good domain", totals["prefixes-without-good-domain"]),
                ]
            )
            + "</table>"
            + f"<p>ok: {text(_pct(totals['correctness']['ok'], totals['dois']))} of DOIs,"
            f" {text(_pct(totals['correctness']['ok'], read))} of pages read.</p>"
            + correctness_bar(f"Meta-tag correctness of all {totals['dois']:,} DOIs", counts)
            + failures_bar(f"Failure classes of the {counts['failed']:,} failed visits", totals["errors"]),
        ),
        ("definitions", "What the words mean", _definitions()),
        (
            "worst-members",
            "Worst members by share of ok",
            tables.add(
                "worst-members",
                "Worst members",
                _linked(MEMBER_COLUMNS[:-1], pages),
                [_member(r) for r in found.get("worst-members", [])],
                everything("members"),
            ),
        ),
        (
            "worst-prefixes",
            "Worst prefixes by share of ok",
            tables.add(
                "worst-prefixes",
                "Worst prefixes",
                _linked(PREFIX_COLUMNS, pages),
                [_prefix(r) for r in found.get("worst-prefixes", [])],
                everything("prefixes"),
            ),
        ),
        (
            "worst-domains",
            "Worst domains by share of ok",
            tables.add(
                "worst-domains",
                "Worst domains",
                _linked(DOMAIN_COLUMNS, pages),
                [_domain(r) for r in found.get("worst-domains", [])],
                everything("domains"),
            ),
        ),
        (
            "largest-members",
            "Largest members",
            tables.add(
                "largest-members",
                "Largest members",
                _linked(MEMBER_COLUMNS[:-1], pages),
                [_member(r) for r in found.get("members", [])],
            ),
        ),
        (
            "no-good-domain",
            f"Prefixes with no good domain ({totals['prefixes-without-good-domain']:,})",
            "<p>No DOI of these prefixes led to a page that states it (the first 100 named).</p>"
            + tables.add(
                "no-good-domain",
                "Prefixes with no good domain",
                [
                    ("prefix", "prefix", "text"),
                    ("dois", "DOIs", "count"),
                    ("failed", "failed", "count"),
                    ("bad-domains", "domains led to", "text"),
                ],
                [{**r, "prefix": r["key"]} for r in found.get("prefixes-without-good-domain", [])],
            ),
        ),
        ("changes", _changes_title(changes), _changes(changes, tables)),
        ("trend", "Trend over versions", trend_section(points, tables)),
    ]
    contents = [(anchor, title) for anchor, title, _ in sections]
    body = "".join(section(anchor, title, html) for anchor, title, html in sections)
    return page(f"Landing pages: report {name}", contents, body, nonce=nonce, back=False), tables


def _find(full: dict[str, int]) -> str:
    """The index's search form (it opens the all-members page with ?q=) and the links to every member and domain."""
    return (
        '<form action="members.html" method=get role=search><label>A member by name or id'
        ' <input type=search name=q id=find-member placeholder="Public Library, crossref/340..."></label>'
        " <button type=submit>Find</button></form>"
        f'<p>Every member: <a href="members.html">all {full.get("members", 0):,} members</a>; every domain:'
        f' <a href="domains.html">all {full.get("domains", 0):,} domains</a>. Each links to its own page.</p>'
    )


def _pct(part: int, whole: int) -> str:
    value = share(part, whole)
    return "–" if value is None else f"{value * 100:.1f}%"


def _changes_title(changes: dict | None) -> str:
    if not changes:
        return "Changes since the last version"
    if changes.get("from"):
        return f"Changes since the last version ({changes['from']} to {changes.get('to')})"
    return f"Changes in the first version ({changes.get('to')})"


def _by_chance(n: int) -> str:
    # docs/artifacts.md "Which changes count": listed below, not counted
    return f", {n:,} more unseen likely by sampling alone" if n else ""


def _changes(changes: dict | None, tables: Tables) -> str:
    if not changes:
        return "<p class=note>No earlier version.</p>"
    rows = change_rows(changes)
    return (
        f"<p>{len(changes['prefixes']['appeared']):,} prefixes appeared, "
        f"{len(changes['prefixes']['disappeared']):,} disappeared; {len(news(changes)):,} prefix-domain pairs changed"
        f"{_by_chance(len(rows) - len(news(changes)))}"
        f"{f' (the first {CHANGES_SHOWN} below; all of them in the files)' if len(rows) > CHANGES_SHOWN else ''}.</p>"
        + tables.add("changes", "Changes", CHANGE_COLUMNS, rows, shown=CHANGES_SHOWN)
    )
