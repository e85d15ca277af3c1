"""`python -m landing.publish ARTIFACTS_DIR VERSION`: draw a version's report.html from its kept figures, and copy
it to the top of ARTIFACTS_DIR (landing.publish.draw_beside runs this in a child process)."""

import sys

from landing.artifacts.files import CorruptArtifact
from landing.publish import draw_version

if __name__ == "__main__":
    try:
        draw_version(*sys.argv[1:3])
    except CorruptArtifact as error:  # said in one line: draw_beside logs it
        sys.exit(str(error))
