"""docs/layout.md names every module of landing/ under its package, so that a newcomer's map is the tree itself."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def listed(text: str) -> set[str]:
    """Module paths as docs/layout.md lists them: a `### `pkg/`` heading, then `- `name.py`` lines."""
    found, package = set(), None
    for line in text.splitlines():
        if heading := re.match(r"### `(.+)/`$", line):
            package = heading.group(1)
        elif (item := re.match(r"- `([a-z0-9_]+\.py)`", line)) and package:
            found.add(f"{package}/{item.group(1)}")
    return found


def test_the_layout_lists_a_module_under_its_package():
    assert listed("### `landing/core/web`/\n### `landing/core/web/`\n- `pace.py`: a rate.\n") == {
        "landing/core/web/pace.py"
    }


def test_the_layout_lists_every_module_and_no_other():
    modules = {str(p.relative_to(ROOT)) for p in (ROOT / "landing").rglob("*.py") if p.name != "__init__.py"}
    assert listed((ROOT / "docs" / "layout.md").read_text("utf-8")) ^ modules == set()
