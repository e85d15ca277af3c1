"""The report directory's HTML: the page shell (style, the one inline script, the contents), and tables.

Every page is static and offline: a Content-Security-Policy lets it load nothing but its own inline style and
script and data: images, so a hostile label can never make the browser fetch anything. Text from outside (names,
domains, URLs, meta tags) is shown through landing.core.labels.printable and escaped.
"""

from html import escape
from urllib.parse import quote

from landing.core.labels import printable
from landing.core.report_rows import percent
from landing.core.slugs import slug

POLICY = "default-src 'none'; img-src data:; style-src 'unsafe-inline'; script-src 'unsafe-inline'"
STYLE = """body{font-family:system-ui,sans-serif;margin:1.5em auto;max-width:80em;padding:0 1em;color:#222}
table{border-collapse:collapse;margin:.4em 0 1em}td,th{border:1px solid #ccc;padding:.15em .5em;text-align:right}
td.x,th.x{text-align:left}th button{font:inherit;font-weight:bold;border:0;background:none;cursor:pointer;padding:0}
th[aria-sort=ascending] button:after{content:" ▲"}th[aria-sort=descending] button:after{content:" ▼"}
h2{margin-top:1.8em;border-bottom:1px solid #ccc}.note,small{color:#555}.files{margin-left:1em}
.key{display:inline-block;width:.9em;height:.9em;margin:0 .25em 0 .8em;vertical-align:middle}
figure{margin:.5em 0}img{max-width:100%}dt{font-weight:bold}dd{margin:0 0 .3em 1.5em}
.wide{max-width:40em;overflow-wrap:anywhere}"""
# Click a heading to sort (numbers by their data-v), again to reverse; type in a table's box to hide the rows
# that do not hold the text.
SCRIPT = """document.querySelectorAll("table.t").forEach(function(t){var b=t.tBodies[0],
f=document.getElementById(t.id+"-filter");if(f)f.addEventListener("input",function(){var q=f.value.toLowerCase();
Array.from(b.rows).forEach(function(r){r.hidden=q!==""&&r.textContent.toLowerCase().indexOf(q)<0})});
var hs=Array.from(t.tHead.rows[0].cells);hs.forEach(function(h,i){h.querySelector("button").addEventListener(
"click",function(){var d=h.getAttribute("aria-sort")==="ascending"?-1:1;hs.forEach(function(x){
x.removeAttribute("aria-sort")});h.setAttribute("aria-sort",d>0?"ascending":"descending");
Array.from(b.rows).sort(function(x,y){var a=x.cells[i],c=y.cells[i];return d*(a.dataset.v!==undefined?
a.dataset.v-c.dataset.v:a.textContent.localeCompare(c.textContent))}).forEach(function(r){b.appendChild(r)})})})})"""


def text(value) -> str:
    """A value as HTML text: escaped, and a control or bidi character shown as its escape, never acting; a list's
    items joined by spaces."""
    if isinstance(value, list):
        value = " ".join(map(str, value))
    return escape(printable("" if value is None else str(value)))


def href(root: str, kind: str, key: str) -> str:
    """The link from a page under `root` ("" at the top, "../" a level down) to a member's or domain's page."""
    return f"{root}{kind}/{quote(slug(key))}.html"


def link(url: str, shown: str | None = None) -> str:
    """A link out of the report (a DOI, a landing page), only for http(s) URLs: anything else is shown as text."""
    if not isinstance(url, str) or not url.lower().startswith(("http://", "https://")):
        return text(url)
    return f'<a href="{escape(url)}" rel="noreferrer nofollow">{text(shown or url)}</a>'


def _cell(kind: str, value, root: str, row: dict) -> str:
    if kind == "count":
        return f'<td data-v="{value or 0}">{value or 0:,}</td>'
    if kind == "share":
        return f'<td data-v="{-1 if value is None else value}">{percent(value)}</td>'
    if kind == "member" and value:
        return f'<td class=x><a href="{href(root, "members", value)}">{text(value)}</a></td>'
    if kind == "member-name" and value and row.get("member"):
        return f'<td class=x><a href="{href(root, "members", row["member"])}">{text(value)}</a></td>'
    if kind == "domain" and value:
        return f'<td class=x><a href="{href(root, "domains", value)}">{text(value)}</a></td>'
    if kind == "domains":
        return "<td class=x>" + " ".join(f'<a href="{href(root, "domains", v)}">{text(v)}</a>' for v in value) + "</td>"
    if kind == "doi" and value:
        return f"<td class=x>{link('https://doi.org/' + quote(value, safe='/'), value)}</td>"
    if kind == "url":
        return f"<td class='x wide'>{link(value)}</td>"
    return f"<td class=x>{text(value)}</td>"


def table(table_id: str, title: str, columns: list, rows: list[dict], root: str = "", note: str = "") -> str:
    """A sortable, filterable table with its CSV and JSON beside it (`<table_id>.csv`, `.json`)."""
    head = "".join(
        f"<th{'' if kind in ('count', 'share') else ' class=x'} scope=col><button type=button>{text(heading)}"
        "</button></th>"
        for _, heading, kind in columns
    )
    body = "".join(
        "<tr>" + "".join(_cell(kind, row.get(key), root, row) for key, _, kind in columns) + "</tr>" for row in rows
    )
    files = f'<a href="{quote(table_id)}.csv">CSV</a> · <a href="{quote(table_id)}.json">JSON</a>'
    if not rows:
        return f"<p class=note>No rows. {note}this table as {files}</p>"
    return (
        f'<p><input type=search id="{escape(table_id)}-filter" placeholder="Filter these rows"'
        f' aria-label="Filter: {text(title)}"><span class=files>{note}this table as {files}</span></p>'
        f'<table class=t id="{escape(table_id)}"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'
    )


def section(anchor: str, title: str, *parts: str) -> str:
    return f'<h2 id="{escape(anchor)}">{text(title)}</h2>' + "".join(parts)


def page(title: str, contents: list[tuple[str, str]], body: str, up: str = "") -> str:
    """A whole page: `contents` are (anchor, title) of its sections, listed first."""
    items = "".join(f'<li><a href="#{escape(a)}">{text(t)}</a></li>' for a, t in contents)
    back = f'<p><a href="{up}index.html">The report\'s index</a></p>' if up else ""
    return (
        f'<!DOCTYPE html><html lang=en><head><meta charset=utf-8><meta http-equiv="Content-Security-Policy"'
        f' content="{POLICY}"><meta name=viewport content="width=device-width"><title>{text(title)}</title>'
        f"<style>{STYLE}</style></head><body>{back}<h1>{text(title)}</h1>"
        f'<nav aria-label="Contents"><strong>Contents</strong><ol>{items}</ol></nav>{body}'
        f"<script>{SCRIPT}</script></body></html>\n"
    )
