"""`python -m landing.report ARTIFACTS_DIR VERSION`: draw a version's report.html from its kept figures, and copy
it to the top of ARTIFACTS_DIR (landing.report.write.beside_version runs this)."""

import sys
from pathlib import Path

from landing.artifacts.files import CorruptArtifact
from landing.report.write import FIGURES, REPORT, changes_of, kept, replace_text, trend, write


def main(artifacts_dir: str, name: str) -> None:
    version = Path(artifacts_dir) / "versions" / name
    found = kept(version / FIGURES)
    drawn = write(version / REPORT, found, changes_of(version), trend(artifacts_dir, upto=version), name)
    replace_text(Path(artifacts_dir) / REPORT, drawn.read_text("utf-8"))


if __name__ == "__main__":
    try:
        main(*sys.argv[1:3])
    except CorruptArtifact as error:  # said in one line: beside_version logs it
        sys.exit(str(error))
