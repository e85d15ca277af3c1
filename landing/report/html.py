"""The report directory's HTML: the page shell (its style and script are files beside it), and tables.

Every page is static and offline: a strict Content-Security-Policy lets it load nothing but the style and scripts
that carry the draw's nonce (no 'unsafe-inline': no inline script, style element or style attribute runs) and
data: images, so a hostile label can never make the browser run or fetch anything. Text from outside (names,
domains, URLs, meta tags) is shown through landing.core.web.labels.printable and escaped.
"""

from html import escape
from urllib.parse import quote

from landing.core.publishing.report_rows import CORRECTNESS_COLOURS, FAILURE_COLOURS, OTHER_COLOUR, percent
from landing.core.publishing.slugs import slug
from landing.core.web.labels import printable

STYLE_FILE, SCRIPT_FILE = "report.css", "report.js"  # beside index.html
_COLOURS = sorted({*CORRECTNESS_COLOURS.values(), *FAILURE_COLOURS.values(), OTHER_COLOUR})
STYLE = (
    """body{font-family:system-ui,sans-serif;margin:1.5em auto;max-width:80em;padding:0 1em;color:#222}
table{border-collapse:collapse;margin:.4em 0 1em}td,th{border:1px solid #ccc;padding:.15em .5em;text-align:right}
td.x,th.x{text-align:left}th button{font:inherit;font-weight:bold;border:0;background:none;cursor:pointer;padding:0}
th[aria-sort=ascending] button:after{content:" ▲"}th[aria-sort=descending] button:after{content:" ▼"}
h2{margin-top:1.8em;border-bottom:1px solid #ccc}.note,small{color:#555}.files{margin-left:1em}
.key{display:inline-block;width:.9em;height:.9em;margin:0 .25em 0 .8em;vertical-align:middle}
figure{margin:.5em 0}img{max-width:100%}dt{font-weight:bold}dd{margin:0 0 .3em 1.5em}
.wide{max-width:40em;overflow-wrap:anywhere}
"""
    + "".join(f".c{c[1:]}{{background:{c}}}" for c in _COLOURS)
    + "\n"
)
# Click a heading to sort (numbers by their data-v), again to reverse; type in a table's box to hide the rows
# that do not hold the text. A page with a find box (#find) and its list (window.LANDING_FIND: [key, name, href],
# from <kind>-find.js) lists the first 50 whose key or name holds the text typed, built as text nodes, never HTML;
# ?q= in the address fills the box (the index's form sends it).
SCRIPT = """document.querySelectorAll("table.t").forEach(function(t){var b=t.tBodies[0],
f=document.getElementById(t.id+"-filter");if(f)f.addEventListener("input",function(){var q=f.value.toLowerCase();
Array.from(b.rows).forEach(function(r){r.hidden=q!==""&&r.textContent.toLowerCase().indexOf(q)<0})});
var hs=Array.from(t.tHead.rows[0].cells);hs.forEach(function(h,i){h.querySelector("button").addEventListener(
"click",function(){var d=h.getAttribute("aria-sort")==="ascending"?-1:1;hs.forEach(function(x){
x.removeAttribute("aria-sort")});h.setAttribute("aria-sort",d>0?"ascending":"descending");
Array.from(b.rows).sort(function(x,y){var a=x.cells[i],c=y.cells[i];return d*(a.dataset.v!==undefined?
a.dataset.v-c.dataset.v:a.textContent.localeCompare(c.textContent))}).forEach(function(r){b.appendChild(r)})})})});
(function(){var q=document.getElementById("find"),out=document.getElementById("found"),all=window.LANDING_FIND;
if(!q||!out||!all)return;var said=document.getElementById("found-count");function show(){
var s=q.value.trim().toLowerCase(),n=0;out.textContent="";if(s)for(var i=0;i<all.length&&n<50;i++){var e=all[i];
if(e[0].toLowerCase().indexOf(s)>=0||e[1].toLowerCase().indexOf(s)>=0){var li=document.createElement("li"),
a=document.createElement("a");a.href=e[2];a.textContent=e[1]?e[1]+" ("+e[0]+")":e[0];li.appendChild(a);
out.appendChild(li);n++}}said.textContent=s?(n>=50?"the first 50 found":n+" found"):""}
q.addEventListener("input",show);var p=new URLSearchParams(location.search).get("q");if(p){q.value=p;show()}})();
"""
ASSETS = {STYLE_FILE: STYLE, SCRIPT_FILE: SCRIPT}


def policy(nonce: str) -> str:
    """The pages' Content-Security-Policy: only the draw's own style and scripts (by `nonce`), data: images.

    >>> policy("n0")
    "default-src 'none'; img-src data:; style-src 'nonce-n0'; script-src 'nonce-n0'; base-uri 'none'; form-action 'self'"
    """
    return (
        f"default-src 'none'; img-src data:; style-src 'nonce-{nonce}'; script-src 'nonce-{nonce}';"
        " base-uri 'none'; form-action 'self'"
    )


def key(colour: str) -> str:
    """A legend's colour square: a class per palette colour (a style attribute would need 'unsafe-inline')."""
    return f'<span class="key c{colour.lstrip("#")}"></span>'


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


def table(
    table_id: str, title: str, columns: list, rows: list[dict], root: str = "", note: str = "", files: bool = True
) -> str:
    """A sortable, filterable table with its CSV and JSON beside it (`<table_id>.csv`, `.json`; unless not `files`:
    then `note` says where its rows are)."""
    head = "".join(
        f"<th{'' if kind in ('count', 'share') else ' class=x'} scope=col><button type=button>{text(heading)}"
        "</button></th>"
        for _, heading, kind in columns
    )
    body = "".join(
        "<tr>" + "".join(_cell(kind, row.get(key), root, row) for key, _, kind in columns) + "</tr>" for row in rows
    )
    beside = f'<a href="{quote(table_id)}.csv">CSV</a> · <a href="{quote(table_id)}.json">JSON</a>'
    said = f"{note}this table as {beside}" if files else note
    if not rows:
        return f"<p class=note>No rows. {said}</p>"
    return (
        f'<p><input type=search id="{escape(table_id)}-filter" placeholder="Filter these rows"'
        f' aria-label="Filter: {text(title)}"><span class=files>{said}</span></p>'
        f'<table class=t id="{escape(table_id)}"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'
    )


def section(anchor: str, title: str, *parts: str) -> str:
    return f'<h2 id="{escape(anchor)}">{text(title)}</h2>' + "".join(parts)


def page(
    title: str,
    contents: list[tuple[str, str]],
    body: str,
    *,
    nonce: str,
    up: str = "",
    back: bool = True,
    scripts: tuple[str, ...] = (),
) -> str:
    """A whole page: `contents` are (anchor, title) of its sections, listed first; `up` the way to the report's top
    ("" or "../"), where its style and script files are; `scripts` more script files there, run before them."""
    items = "".join(f'<li><a href="#{escape(a)}">{text(t)}</a></li>' for a, t in contents)
    nav = f'<nav aria-label="Contents"><strong>Contents</strong><ol>{items}</ol></nav>' if items else ""
    back_link = f'<p><a href="{up}index.html">The report\'s index</a></p>' if back else ""
    run = "".join(f'<script src="{up}{quote(name)}" nonce="{nonce}"></script>' for name in (*scripts, SCRIPT_FILE))
    return (
        f'<!DOCTYPE html><html lang=en><head><meta charset=utf-8><meta http-equiv="Content-Security-Policy"'
        f' content="{policy(nonce)}"><meta name=viewport content="width=device-width"><title>{text(title)}</title>'
        f'<link rel=stylesheet href="{up}{STYLE_FILE}" nonce="{nonce}"></head><body>{back_link}<h1>{text(title)}</h1>'
        f"{nav}{body}{run}</body></html>\n"
    )
