"""The HTML report: one static, self-contained file, its charts drawn by matplotlib as SVG images inside it.

Why matplotlib: the best-kept Python plotting library, and its SVG needs no JavaScript, no fonts and no network,
so the file opens offline in any browser, prints, and has nothing that could fail in a console. It is imported
only here, when a report is drawn: the crawl itself never loads it (export draws the report in a child process).
"""

import base64
import io
from html import escape

from landing.core.artifacts import CORRECTNESS
from landing.core.labels import printable

COLOURS = {"ok": "#2e7d32", "incorrect": "#c62828", "conflict": "#ef6c00", "missing": "#9e9e9e", "failed": "#37474f"}
STYLE = """body{font-family:system-ui,sans-serif;margin:2em auto;max-width:70em;color:#222}
table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:.2em .6em;text-align:right}
td:first-child,th:first-child{text-align:left}h2{margin-top:2em;border-bottom:1px solid #ccc}img{max-width:100%}
.note{color:#666}"""
LABEL = 48  # characters of a chart's label at most


def _chart(draw) -> str:
    """An <img> of what draw(axes) plots, as an SVG data URI."""
    import matplotlib

    matplotlib.use("svg")
    import matplotlib.pyplot as plt

    # parse_math off: a label is a domain, prefix or member id from outside, and "$a__b$" would be read as math.
    settings = {"svg.hashsalt": "landing", "svg.fonttype": "path", "text.parse_math": False, "text.usetex": False}
    with matplotlib.rc_context(settings):
        figure, axes = plt.subplots(figsize=(9, 4.5))
        try:
            draw(axes)
            figure.tight_layout()
            buffer = io.BytesIO()
            figure.savefig(buffer, format="svg", metadata={"Date": None})
        finally:
            plt.close(figure)
    encoded = base64.b64encode(buffer.getvalue()).decode("ascii")
    return f'<img alt="chart" src="data:image/svg+xml;base64,{encoded}">'


def _label(key) -> str:
    """A chart's label: printable, and cut short (a domain may be 253 characters; the table beside says it all)."""
    shown = printable(str(key))
    return shown if len(shown) <= LABEL else shown[: LABEL - 1] + "…"


def _stacked(rows: list[dict], field: str, names: list[str], colours: dict | None = None):
    def draw(axes):
        labels = [_label(row["key"]) for row in rows][::-1]
        left = [0] * len(rows)
        for name in names:
            values = [row[field].get(name, 0) for row in rows][::-1]
            axes.barh(labels, values, left=left, label=_label(name), color=(colours or {}).get(name))
            left = [a + b for a, b in zip(left, values)]
        axes.set_xlabel("DOIs")
        axes.legend(loc="lower right", fontsize="small")
        axes.tick_params(axis="y", labelsize="small")

    return draw


def _text(value) -> str:
    """A value as HTML text: escaped, and a control or bidi character shown as its escape, never acting."""
    return escape(printable(str(value)))


def _table(header: list[str], rows: list[list]) -> str:
    head = "".join(f"<th>{_text(h)}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{_text(cell)}</td>" for cell in row) + "</tr>" for row in rows)
    return f"<table><tr>{head}</tr>{body}</table>"


def _correctness_rows(rows: list[dict]) -> list[list]:
    return [
        [row["key"], row["dois"], *(row["correctness"][name] for name in CORRECTNESS), row["failed"]] for row in rows
    ]


def _section(title: str, rows: list[dict], what: str) -> str:
    if not rows:
        return f"<h2>{escape(title)}</h2><p class=note>No {escape(what)} yet.</p>"
    ended = [{**row, "ended": {**row["correctness"], "failed": row["failed"]}} for row in rows]
    return (
        f"<h2>{escape(title)}</h2>"
        + _chart(_stacked(ended, "ended", [*CORRECTNESS, "failed"], COLOURS))
        + _table([what, "DOIs", *CORRECTNESS, "failed"], _correctness_rows(rows))
    )


def render(found: dict, changes: dict | None = None, trend: list[dict] | None = None, title: str = "") -> str:
    """The report's HTML: figures (landing.core.report.figures), the latest changes and the trend, if any."""
    totals = found["totals"]
    parts = [
        f"<h1>Landing pages: {_text(title)}</h1>",
        "<h2>Totals</h2>",
        _table(
            ["", "count"],
            [
                ["DOIs", totals["dois"]],
                ["members and clients", totals["members"]],
                ["prefixes", totals["prefixes"]],
                ["domains", totals["domains"]],
                ["prefixes with no good domain", totals["prefixes-without-good-domain"]],
            ],
        ),
        _table(["meta-tag correctness", "DOIs"], [[name, totals["correctness"][name]] for name in CORRECTNESS]),
        _table(["failure class", "DOIs"], [[name, n] for name, n in totals["errors"].items()]),
    ]
    parts.append(_section("Meta-tag correctness per member (largest)", found["members"], "member"))
    parts.append(_section("Top prefixes by DOIs, and their meta-tag correctness", found["prefixes"], "prefix"))
    parts.append(_section("Meta-tag correctness per domain (largest)", found["domains"], "domain"))
    failing = found["failing-domains"]
    classes = sorted({name for row in failing for name in row["errors"]})
    parts.append("<h2>Failure classes per domain (most failures)</h2>")
    parts.append(
        _chart(_stacked(failing, "errors", classes))
        + _table(
            ["domain", "DOIs", *classes],
            [[row["key"], row["dois"], *(row["errors"].get(c, 0) for c in classes)] for row in failing],
        )
        if failing
        else "<p class=note>No failed visit.</p>"
    )
    parts.append("<h2>Worst domains (lowest share of correct meta tags)</h2>")
    parts.append(
        _table(
            ["domain", "DOIs", "ok share", *CORRECTNESS],
            [
                [row["key"], row["dois"], f"{row['ok-share']:.0%}", *(row["correctness"][name] for name in CORRECTNESS)]
                for row in found["worst-domains"]
            ],
        )
    )
    no_good = found["prefixes-without-good-domain"]
    parts.append(f"<h2>Prefixes with no good domain ({totals['prefixes-without-good-domain']})</h2>")
    parts.append(
        _table(
            ["prefix", "DOIs", "failed", "domains led to"],
            [[row["key"], row["dois"], row["failed"], " ".join(row["bad-domains"])] for row in no_good],
        )
    )
    parts.append(_changes(changes))
    parts.append(_trend(trend or []))
    return (
        f"<!DOCTYPE html><html lang=en><head><meta charset=utf-8><title>Landing report {_text(title)}</title>"
        f"<style>{STYLE}</style></head><body>{''.join(parts)}</body></html>\n"
    )


def _changes(changes: dict | None) -> str:
    if not changes:
        return "<h2>Changes since the last version</h2><p class=note>No earlier version.</p>"
    rows = changes["pairs"]
    said = [
        [
            row["prefix"],
            row["domain"],
            " ".join(f"+{x}" for x in row["appeared"]),
            " ".join(f"-{x}" for x in row["disappeared"]),
            row["unseen-since"] or "",
        ]
        for row in rows[:200]
    ]
    since = (
        f"since the last version ({_text(changes['from'])} to {_text(changes.get('to'))})"
        if changes.get("from")
        else f"in the first version ({_text(changes.get('to'))})"
    )
    return (
        f"<h2>Changes {since}</h2>"
        f"<p>{len(changes['prefixes']['appeared'])} prefixes appeared, "
        f"{len(changes['prefixes']['disappeared'])} disappeared; {len(rows)} prefix-domain pairs changed"
        f"{' (the first 200 below)' if len(rows) > 200 else ''}.</p>"
        + _table(["prefix", "domain", "appeared", "disappeared", "not seen since"], said)
    )


def _trend(points: list[dict]) -> str:
    if len(points) < 2:
        return "<h2>Correctness over runs</h2><p class=note>One version so far: no trend yet.</p>"

    def draw(axes):
        names = [_label(point["version"]) for point in points]
        for name in CORRECTNESS:
            shares = [point["correctness"][name] / max(1, sum(point["correctness"].values())) for point in points]
            axes.plot(names, shares, marker="o", label=name, color=COLOURS[name])
        axes.set_ylabel("share of DOIs read")
        axes.tick_params(axis="x", labelrotation=30, labelsize="small")
        axes.legend(fontsize="small")

    return "<h2>Correctness over runs</h2>" + _chart(draw)
