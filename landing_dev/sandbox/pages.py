"""Landing pages rendered on demand from a page spec (a route's `page` object, see docs/sandbox.md).

Rendering is deterministic: the same spec gives the same bytes, so a body's hash is stable.
"""

import json
import random
from html import escape

_WORDS = (
    "analysis binding cell climate cohort data density dynamics effect enzyme evidence field flow gene "
    "growth health impact layer light marine matrix model network neural ocean pattern phase policy "
    "protein quantum rate region response risk sample signal soil species spectrum stress structure "
    "surface system theory thermal tissue transport trial urban variation water wave yield"
).split()

_PDF = (
    b"%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n"
    b"2 0 obj << /Type /Pages /Kids [] /Count 0 >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n"
)


def _sentence(rng: random.Random, words: int) -> str:
    chosen = [rng.choice(_WORDS) for _ in range(words)]
    return " ".join(chosen).capitalize() + "."


def reference_dois(spec: dict, rng: random.Random) -> list[str]:
    """The other works' DOIs a page cites: `count` DOIs, some extending `near` as a string prefix."""
    refs = spec.get("refs") or {}
    count, near = refs.get("count", 0), refs.get("near")
    prefixes = refs.get("prefixes") or ["10.1000", "10.1016", "10.1038", "10.1371", "10.5061"]
    out = []
    if near:
        # Same string start, different work: 10.5555/1234 vs 10.5555/12345 and .supp supplements.
        out += [near + str(rng.randrange(10)), near + ".supp", near + "-s001"][: max(1, min(3, count))]
    while len(out) < count:
        out.append(f"{rng.choice(prefixes)}/{rng.choice(_WORDS)}.{rng.randrange(1990, 2026)}.{rng.randrange(1, 9999)}")
    return out


def _meta_tag(item) -> str:
    if isinstance(item, dict):
        attrs = item
    else:
        attrs = {"name": item[0], "content": item[1], **(item[2] if len(item) > 2 else {})}
    return "<meta " + " ".join(f'{k}="{escape(str(v))}"' for k, v in attrs.items()) + ">"


def _head(spec: dict, rng: random.Random, refs: list[str]) -> list[str]:
    charset = spec.get("declared_charset", "utf-8")
    head = ["<head>"]
    if charset:
        head.append(f'<meta charset="{escape(charset)}">')
    head.append(f"<title>{escape(spec.get('title', 'Untitled'))}</title>")
    head.append('<meta name="viewport" content="width=device-width, initial-scale=1">')
    if spec.get("meta_refresh"):
        head.append(f'<meta http-equiv="refresh" content="0; url={escape(spec["meta_refresh"])}">')
    for item in spec.get("meta", []):
        head.append(_meta_tag(item))
    if spec.get("refs_in_meta"):
        for doi in refs[:20]:
            content = f"citation_journal_title={rng.choice(_WORDS).title()} Letters; citation_doi={doi}"
            head.append(_meta_tag(["citation_reference", content]))
    if spec.get("canonical"):
        head.append(f'<link rel="canonical" href="{escape(spec["canonical"])}">')
    head.append('<link rel="stylesheet" href="/static/site.css">')
    head.append("</head>")
    return head


def _script_only_body(spec: dict) -> list[str]:
    """Bodies of pages that only work with JavaScript: redirects and challenges."""
    if spec.get("js_redirect"):
        target = json.dumps(spec["js_redirect"])
        return ["<body>", f"<script>window.location = {target};</script>", "</body>"]
    if spec.get("js_computed"):
        # The target never appears literally: it is assembled at run time, as real SPAs do.
        target = spec["js_computed"]
        parts = json.dumps([target[i : i + 7] for i in range(0, len(target), 7)])
        return [
            "<body>",
            '<div id="app"></div>',
            f"<script>var p = {parts}; window.location.assign(p.join(''));</script>",
            "</body>",
        ]
    if spec.get("challenge"):
        cookie = json.dumps(spec["challenge"] + "; path=/")
        return [
            "<body>",
            "<h1>Just a moment...</h1>",
            "<p>Checking your browser before accessing the site.</p>",
            f"<script>document.cookie = {cookie}; setTimeout(function () {{ location.reload(); }}, 50);</script>",
            "<noscript>Enable JavaScript and cookies to continue</noscript>",
            "</body>",
        ]
    return []


def render(spec: dict) -> bytes:
    """HTML bytes for a page spec, in the spec's `encoding` (default utf-8)."""
    rng = random.Random(spec.get("seed", 0))
    refs = reference_dois(spec, rng)
    html = ["<!DOCTYPE html>", f'<html lang="{spec.get("lang", "en")}">']
    html += _head(spec, rng, refs)
    script_body = _script_only_body(spec)
    if script_body:
        html += script_body
    else:
        html += _article_body(spec, rng, refs)
    html.append("</html>")
    text = "\n".join(html) + "\n"
    data = text.encode(spec.get("encoding", "utf-8"), errors="xmlcharrefreplace")
    pad_to = spec.get("pad_to", 0)
    if len(data) < pad_to:
        filler = f"<!-- {_sentence(rng, 12)} -->\n".encode()
        data += filler * ((pad_to - len(data)) // len(filler) + 1)
    return data


def _article_body(spec: dict, rng: random.Random, refs: list[str]) -> list[str]:
    body = [
        "<body>",
        '<header><nav><a href="/">Home</a> <a href="/journals">Journals</a> <a href="/about">About</a></nav></header>',
        "<main><article>",
        f"<h1>{escape(spec.get('title', 'Untitled'))}</h1>",
    ]
    body.append(f'<p class="authors">{escape(spec.get("authors", "A. Author, B. Author"))}</p>')
    for text in spec.get("text", []):
        body.append(f'<p class="identifier">{escape(text)}</p>')
    for href, label in _links(spec):
        body.append(f'<p class="link"><a href="{escape(href)}">{escape(label)}</a></p>')
    body.append("<section><h2>Abstract</h2>")
    for _ in range(spec.get("paragraphs", 6)):
        body.append(f"<p>{' '.join(_sentence(rng, rng.randrange(8, 20)) for _ in range(6))}</p>")
    body.append("</section>")
    if refs:
        body.append('<section class="references"><h2>References</h2><ol>')
        for number, doi in enumerate(refs, 1):
            url = "https://doi.org/" + doi
            body.append(
                f"<li>{escape(_sentence(rng, 7))} <i>{rng.choice(_WORDS).title()} Letters</i> "
                f"{rng.randrange(1, 99)}, {number} ({rng.randrange(1990, 2026)}). "
                f'doi:{escape(doi)} <a href="{escape(url)}">{escape(url)}</a></li>'
            )
        body.append("</ol></section>")
    body.append("</article></main>")
    body.append(
        '<footer><p>&copy; The Publisher. <a href="/terms">Terms</a></p>'
        '<script src="/static/site.js"></script></footer>'
    )
    body.append("</body>")
    return body


def _links(spec):
    for link in spec.get("links", []):
        if isinstance(link, str):
            yield link, link
        else:
            yield link[0], link[1]


def pdf_bytes() -> bytes:
    """A minimal, valid PDF: what a publisher returns when the resource URL is the full text."""
    return _PDF
