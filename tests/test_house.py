"""The house's shape (docs/layout.md): a pure core, a file name said once, modules short enough to read in a sitting."""

import sys
from collections import Counter
from pathlib import Path

from tests.test_layers import imported

ROOT = Path(__file__).resolve().parents[1]
# What the core may import beyond its own modules: the standard library's pure parts, the parsing libraries and orjson
# (JSON written, as `json` writes it). No Scrapy, Twisted, network client, store or process: the core takes data and
# returns data.
PURE = {"idna", "lxml", "orjson", "scipy", "w3lib"}
IMPURE = {"asyncio", "os", "pathlib", "shutil", "socket", "sqlite3", "subprocess", "tempfile", "threading", "time"}
COMMANDS = {p.stem for p in (ROOT / "landing" / "commands").glob("*.py")} - {"__init__", "stores"}
LONGEST = 400


def modules(under: str = "landing") -> list[Path]:
    return sorted((ROOT / under).rglob("*.py"))


def outside_imports(path: Path) -> set[str]:
    """Top-level names of what a file imports from outside the landing package (tests/test_layers.py reads them)."""
    return {module.split(".")[0] for _, module in imported(path)} - {"landing"}


def test_the_core_imports_only_the_standard_librarys_pure_parts_and_the_parsers():
    wrong = {
        f"{path.relative_to(ROOT)}: {name}"
        for path in modules("landing/core")
        for name in outside_imports(path)
        if name in IMPURE or (name not in sys.stdlib_module_names and name not in PURE)
    }
    assert sorted(wrong) == []


def test_no_two_modules_of_landing_share_a_file_name():
    names = Counter(path.name for path in modules() if path.name != "__init__.py")
    assert sorted(name for name, count in names.items() if count > 1) == []


def test_only_a_command_module_is_named_as_a_command():
    named = [
        str(path.relative_to(ROOT)) for path in modules() if path.stem in COMMANDS and path.parent.name != "commands"
    ]
    assert named == []


def test_no_module_is_longer_than_one_sitting():
    long = [
        f"{path.relative_to(ROOT)}: {n}"
        for path in modules()
        if (n := len(path.read_text("utf-8").splitlines())) > LONGEST
    ]
    assert long == []
