"""Write the HTML report to a file, from its figures, a version's changes and the trend (landing.publish says which)."""

import os
from pathlib import Path

REPORT = "report.html"


def write(out, found: dict, changes: dict | None, points: list[dict], title: str) -> Path:
    """Render the report to `out` (atomically: a reader never sees half a file)."""
    from landing.report.html import render  # matplotlib: only a process that draws imports it

    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    replace_text(out, render(found, changes, points, title))
    return out


def replace_text(out: Path, text: str) -> None:
    """Give `out` this text at once: written beside it, then swapped in."""
    # A plain file (not artifact files' fsynced one): a report is redrawn from the figures if it is lost.
    temporary = out.with_name(f".{out.name}.tmp")
    temporary.write_text(text, encoding="utf-8")
    os.replace(temporary, out)
