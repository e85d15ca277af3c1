"""Packages import only the layers below them (docs/layout.md "Layers"): read from every module's imports with ast,
function-level imports included, so a cycle cannot come back unseen."""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# From the bottom. Packages in one layer are siblings: neither imports the other. A package left out is not checked.
LAYERS = (
    ("landing.clock",),
    # The pure core, by feature: DOI forms and how the crawler treats the web first, what is published and continuous
    # mode's rules last.
    ("landing.core.pids", "landing.core.web"),
    ("landing.core.registries",),
    ("landing.core.pages", "landing.core.sampling"),
    ("landing.core.matching",),
    ("landing.core.publishing",),
    ("landing.core.continuous",),
    ("landing.settings", "landing.tuning"),
    ("landing.stores",),
    ("landing.setting_checks",),
    ("landing.config",),
    ("landing.addon",),
    ("landing.crawl",),
    ("landing.browser",),
    ("landing.artifacts", "landing.report"),
    ("landing.publish",),
    ("landing.match",),
    ("landing.sampler", "landing.serve"),
    ("landing.commands",),
)


def layer_of(module: str) -> tuple[int, str] | None:
    """(layer index, package) of a dotted module name, None for one in no layer."""
    for index, packages in enumerate(LAYERS):
        for package in packages:
            if module == package or module.startswith(package + "."):
                return index, package
    return None


def module_name(path: Path, root: Path = ROOT) -> str:
    parts = path.relative_to(root).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported(path: Path, root: Path = ROOT) -> list[tuple[int, str]]:
    """(line, dotted module) of every import in a file, relative ones resolved."""
    package = module_name(path, root).split(".")
    if path.name != "__init__.py":
        package = package[:-1]
    found = []
    for node in ast.walk(ast.parse(path.read_text("utf-8"), str(path))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            module = ".".join([*base, node.module] if node.module else base)
            # `from landing import report` names a module too, not only a name in landing/__init__.py.
            found += [(node.lineno, f"{module}.{alias.name}") for alias in node.names]
    return found


def upward(path: Path, root: Path = ROOT) -> list[str]:
    """Each import of the file that reaches a package in its own layer (not its own package) or a layer above."""
    own = layer_of(module_name(path, root))
    if own is None:
        return []
    wrong = []
    for line, module in imported(path, root):
        other = layer_of(module)
        if other is not None and other[1] != own[1] and other[0] >= own[0]:
            wrong.append(f"{path.relative_to(root)}:{line} {own[1]} imports {module}")
    return wrong


def test_no_module_imports_a_package_in_its_own_layer_or_above():
    modules = sorted((ROOT / "landing").rglob("*.py"))
    assert modules
    assert [problem for path in modules for problem in upward(path)] == []


@pytest.mark.parametrize(
    "source, said",
    [
        ("from landing.report.directory import write\n", "landing.artifacts imports landing.report.directory.write"),
        ("def f():\n    import landing.publish\n", "landing.artifacts imports landing.publish"),
        ("from ..report import html\n", "landing.artifacts imports landing.report.html"),
    ],
    ids=["from-import", "function-level-import", "relative-import"],
)
def test_an_import_of_a_sibling_or_a_layer_above_is_found(tmp_path, source, said):
    module = tmp_path / "landing" / "artifacts" / "upwards.py"
    module.parent.mkdir(parents=True)
    module.write_text(source)
    assert upward(module, tmp_path) == [f"landing/artifacts/upwards.py:{source.count(chr(10))} {said}"]


def test_an_import_from_a_layer_below_or_its_own_package_is_allowed(tmp_path):
    module = tmp_path / "landing" / "publish" / "drawing.py"
    module.parent.mkdir(parents=True)
    module.write_text("from landing.artifacts import files\nfrom landing.publish import FIGURES\nimport json\n")
    assert upward(module, tmp_path) == []


def imported_on_load(path: Path, root: Path = ROOT) -> list[tuple[int, str]]:
    """(line, dotted module) of the imports a file runs when it is loaded: all but those inside a function."""
    tree = ast.parse(path.read_text("utf-8"), str(path))
    lazy = {
        id(inner)
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        for inner in ast.walk(node)
    }
    eager = {
        node.lineno for node in ast.walk(tree) if isinstance(node, ast.Import | ast.ImportFrom) and id(node) not in lazy
    }
    return [(line, module) for line, module in imported(path, root) if line in eager]


def development_imports(path: Path, root: Path = ROOT) -> list[str]:
    """Each import of landing_dev (not in the Scrapyd egg) that the file runs when it is loaded."""
    return [
        f"{path.relative_to(root)}:{line} imports {module}"
        for line, module in imported_on_load(path, root)
        if module == "landing_dev" or module.startswith("landing_dev.")
    ]


def test_no_module_of_landing_imports_landing_dev_when_loaded():
    modules = sorted((ROOT / "landing").rglob("*.py"))
    assert modules
    assert [problem for path in modules for problem in development_imports(path)] == []


@pytest.mark.parametrize(
    "source, said",
    [
        ("from landing_dev.sandbox import world\n", "landing_dev.sandbox.world"),
        ("try:\n    import landing_dev\nexcept ImportError:\n    pass\n", "landing_dev"),
        ("class Command:\n    from landing_dev import demo\n", "landing_dev.demo"),
    ],
    ids=["from-import", "guarded-import", "class-body-import"],
)
def test_an_import_of_landing_dev_run_on_load_is_found(tmp_path, source, said):
    module = tmp_path / "landing" / "commands" / "dev.py"
    module.parent.mkdir(parents=True)
    module.write_text(source)
    line = source[: source.index("landing_dev")].count("\n") + 1
    assert development_imports(module, tmp_path) == [f"landing/commands/dev.py:{line} imports {said}"]


def test_an_import_of_landing_dev_inside_a_function_is_allowed(tmp_path):
    module = tmp_path / "landing" / "commands" / "dev.py"
    module.parent.mkdir(parents=True)
    module.write_text("def run():\n    from landing_dev.sandbox import world\n\n    return world\n")
    assert development_imports(module, tmp_path) == []
