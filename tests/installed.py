"""The .venv's packages as a Scrapyd node installs them: requirements.txt, not the development tools (landing-dev)."""

import sysconfig
from pathlib import Path

DEV = "landing_dev"  # the development tools' package, and the start of their distribution's installed files


def node_packages(root: Path) -> dict:
    """The environment (PYTHONPATH) under which `python -S` imports what a node has: a folder in `root` linking every
    entry of the .venv's site-packages but landing-dev's (its metadata, its editable finder)."""
    site, node = Path(sysconfig.get_paths()["purelib"]), root / "node-packages"
    node.mkdir(exist_ok=True)
    for entry in site.iterdir():
        if DEV not in entry.name and not (node / entry.name).exists():
            (node / entry.name).symlink_to(entry)
    return {"PYTHONPATH": str(node)}
