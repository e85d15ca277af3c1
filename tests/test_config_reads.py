"""Every LANDING_* setting is read through landing.config, nowhere else in the package."""

import ast
from pathlib import Path

import landing

# A settings read of a LANDING_* name outside landing/config.py and its checks (setting_checks.py): Scrapy's
# getters, a subscript, or a check of config's called on its own. Each bypasses the one checked object (and usually brings a default of its own).
_READS = {"get", "getint", "getfloat", "getbool", "getlist", "getdict", "getwithbase"}
_CHECKS = {"number", "choice", "flag", "endpoint"}  # (settings, name): the name is their second argument


def _landing_reads(source: str) -> list[int]:
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call):
            name = getattr(node.func, "attr", getattr(node.func, "id", None))
            literal = node.args[1:2] if name in _CHECKS else node.args[:1]
        elif isinstance(node, ast.Subscript):
            name, literal = "[]", [node.slice]
        else:
            continue
        named = [a for a in literal if isinstance(a, ast.Constant) and str(a.value).startswith("LANDING_")]
        if (name in _READS | _CHECKS or name == "[]") and named:
            found.append(node.lineno)
    return found


def test_the_read_finder_finds_each_kind_of_read_and_no_write():
    source = (
        's.getint("LANDING_FRONTIER")\nsettings.get("LANDING_DOCS", 1)\nx = s["LANDING_RUN"]\n'
        'number(s, "LANDING_WORKERS")\ns.set("LANDING_RESOLVER_RATE", 1)\ns.getpriority("LANDING_X")\n'
        'cfg.frontier\ns.getint("DOWNLOAD_TIMEOUT")\nendpoint(s, "LANDING_DOI_RESOLVER")\n'
    )
    assert _landing_reads(source) == [1, 2, 3, 4, 9]


def test_no_landing_setting_is_read_outside_config_but_through_it():
    package = Path(landing.__file__).parent
    found = {
        f"{path.relative_to(package.parent)}:{line}"
        for path in sorted(package.rglob("*.py"))
        if path not in (package / "config.py", package / "setting_checks.py")
        for line in _landing_reads(path.read_text(encoding="utf-8"))
    }
    assert found == set()
