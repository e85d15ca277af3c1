"""`python -m landing.report ARTIFACTS_DIR VERSION`: draw a version's report.html from its kept figures, and copy
it to the top of ARTIFACTS_DIR (landing.report.write.beside_version runs this)."""
import json
import shutil
import sys
from pathlib import Path

from landing.report.write import FIGURES, REPORT, trend, write
from landing.artifacts.files import CHANGES


def main(artifacts_dir: str, name: str) -> None:
    version = Path(artifacts_dir) / "versions" / name
    found = json.loads((version / FIGURES).read_text("utf-8"))
    changes = json.loads((version / CHANGES).read_text("utf-8")) if (version / CHANGES).is_file() else None
    drawn = write(version / REPORT, found, changes, trend(artifacts_dir, upto=version), name)
    top = Path(artifacts_dir) / REPORT
    shutil.copyfile(drawn, top.with_name(f".{REPORT}.tmp"))
    top.with_name(f".{REPORT}.tmp").replace(top)


if __name__ == "__main__":
    main(*sys.argv[1:3])
