"""Charts as SVG text, shown as data: images with alt text that says what they show, with the numbers.

Built as text, not by matplotlib: a full run draws a page per member, and a bar or a line is a few elements;
text costs a small fraction of matplotlib's time a chart, and loads no plotting library.
"""

import base64
from html import escape
from xml.sax.saxutils import escape as xml

from landing.core.publishing.report_rows import OTHER_COLOUR, parts_alt, percent, trend_alt
from landing.core.web.labels import printable
from landing.report.html import key

WIDTH, BAR, PLOT = 640, 26, 180  # pixels: the width of every chart, a bar's height, a trend's plotting height


def _img(svg: str, alt: str, width: int, height: int) -> str:
    encoded = base64.b64encode(svg.encode("utf-8")).decode("ascii")
    return f'<img alt="{escape(alt)}" width={width} height={height} src="data:image/svg+xml;base64,{encoded}">'


def _svg(width: int, height: int, inner: str) -> str:
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}"'
        f' font-family="sans-serif" font-size="11">{inner}</svg>'
    )


def legend(parts: list[tuple[str, int]], colours: dict) -> str:
    """The legend under a bar, as HTML text: each part's colour, name and count."""
    return "".join(f"{key(colours.get(name, OTHER_COLOUR))}{escape(printable(name))} {n:,}" for name, n in parts if n)


def bar(what: str, parts: list[tuple[str, int]], colours: dict) -> str:
    """One stacked bar of parts (their colours from one palette), its legend, and alt text with every count."""
    whole = sum(n for _, n in parts)
    rects, x = [], 0.0
    for name, n in parts:
        if n:
            w = WIDTH * n / whole
            rects.append(
                f'<rect x="{x:.2f}" y="0" width="{w:.2f}" height="{BAR}" fill="{colours.get(name, OTHER_COLOUR)}">'
                f"<title>{xml(printable(name))} {n}</title></rect>"
            )
            x += w
    if not rects:
        rects.append(f'<rect x="0" y="0" width="{WIDTH}" height="{BAR}" fill="#eeeeee"/>')
    image = _img(_svg(WIDTH, BAR, "".join(rects)), parts_alt(what, parts), WIDTH, BAR)
    return f"<figure>{image}<figcaption>{escape(what)}:{legend(parts, colours)}</figcaption></figure>"


def trend(what: str, series: list[tuple[str, str, list[tuple[float | None, int]]]], versions: list[str]) -> str:
    """Lines of shares over versions on an axis from 0 to 100%, each point with its sample size (in its title and
    the alt text), so that 2 pages of 14 never look like a cliff; `series` are (name, colour, (share or None,
    sample size) a version)."""
    left, top, height = 56, 8, PLOT + 40
    step = (WIDTH - left - 16) / max(1, len(versions) - 1)

    def y(v: float) -> float:
        return top + PLOT * (1 - v)

    grid = "".join(
        f'<line x1="{left}" x2="{WIDTH - 8}" y1="{y(v):.1f}" y2="{y(v):.1f}" stroke="#dddddd"/>'
        f'<text x="{left - 4}" y="{y(v) + 4:.1f}" text-anchor="end">{percent(v)}</text>'
        for v in (0.0, 0.5, 1.0)
    )
    lines = []
    for n, (name, colour, points) in enumerate(series):
        dash = ' stroke-dasharray="6 3"' if n else ""  # the second line dashed: the same palette, told apart
        xy = [(left + i * step, y(v), f"{percent(v)} of {of:,}") for i, (v, of) in enumerate(points) if v is not None]
        dots = "".join(
            f'<circle cx="{a:.1f}" cy="{b:.1f}" r="3" fill="{colour}"><title>{xml(name)}: {said}</title></circle>'
            for a, b, said in xy
        )
        path = " ".join(f"{a:.1f},{b:.1f}" for a, b, _ in xy)
        lines.append(f'<polyline fill="none" stroke="{colour}" stroke-width="2"{dash} points="{path}"/>{dots}')
    labels = (
        f'<text x="{left}" y="{top + PLOT + 18}">{xml(printable(versions[0]))}</text>'
        f'<text x="{WIDTH - 8}" y="{top + PLOT + 18}" text-anchor="end">{xml(printable(versions[-1]))}</text>'
        if versions
        else ""
    )
    alts = "; ".join(trend_alt(name, [(v, *p) for v, p in zip(versions, points)]) for name, _, points in series)
    image = _img(_svg(WIDTH, height, grid + "".join(lines) + labels), f"{what}. {alts}", WIDTH, height)
    keys = "".join(
        f"{key(colour)}{escape(name)}{' (dashed)' if n else ''}" for n, (name, colour, _) in enumerate(series)
    )
    note = "The axis runs from 0 to 100%; each point's sample size is in its tooltip and in the table below."
    return f"<figure>{image}<figcaption>{keys}<br><span class=note>{note}</span></figcaption></figure>"
