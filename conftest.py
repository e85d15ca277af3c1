"""How `make test` collects the packages' doctests (`--doctest-modules landing landing_dev bench`)."""

from pathlib import Path

PACKAGES = tuple(Path(__file__).parent / name for name in ("landing", "landing_dev", "bench"))


def pytest_ignore_collect(collection_path: Path, config):
    """A module of the packages without a doctest is not imported to look for one: each worker would import it for
    nothing (the tests import what they test; tests/test_layers.py imports every module)."""
    if (
        collection_path.suffix == ".py"
        and collection_path.name != "__init__.py"
        and collection_path.is_relative_to(PACKAGES[0].parent)
        and any(collection_path.is_relative_to(package) for package in PACKAGES)
        and ">>>" not in collection_path.read_text(encoding="utf-8")
    ):
        return True
    return None
