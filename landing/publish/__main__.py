"""`python -m landing.publish ARTIFACTS_DIR VERSION`: draw a version's report directory from its kept figures and files,
and copy it to the top of ARTIFACTS_DIR (landing.publish.draw_beside runs this in a child process).

`python -m landing.publish --export`: the whole publish step, as the JSON spec on standard input says, its summary
printed as JSON (landing.publish.child_process.publish_apart runs this in a child process)."""

import sys

from landing.artifacts.artifact_files import ArtifactError
from landing.publish import draw_version
from landing.publish.child_process import export_from_spec

if __name__ == "__main__":
    if sys.argv[1:] == ["--export"]:
        sys.exit(export_from_spec(sys.stdin.read()))
    try:
        draw_version(*sys.argv[1:3])
    except ArtifactError as error:  # said in one line: draw_beside logs it
        sys.exit(str(error))
