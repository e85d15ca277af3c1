"""The publish step in a child process (`python -m landing.publish --export`, a JSON spec on its standard input), so
that a crawl's heap never holds the aggregate of every analysis: a continuous crawl exports every day for months,
and memory its allocator kept after each in-process rebuild made its RSS grow with the exports (docs/continuous.md
"Memory"). The child opens the same document store, which the caller flushes first, and the same clock.
"""

import json
import logging
import os
import subprocess
import sys
from datetime import UTC, datetime

from landing import clock
from landing.artifacts.artifact_files import ArtifactError
from landing.stores import StoreError, open_docs
from landing.stores.checks import describe

logger = logging.getLogger(__name__)

FAILED = 3  # the child's exit status for a failure it names in one line (a store or an artifact it cannot use)


class PublishError(RuntimeError):
    """The child could not export: its message says why."""


def publish_apart(
    docs_url: str,
    docs_options: dict,
    artifacts_dir,
    exclusions: frozenset[str],
    report: bool,
    at: datetime | None = None,
) -> dict:
    """landing.publish.publish on the store `docs_url` names (opened with `docs_options`, plain values), run in a
    child process on this process's clock, its version named for `at` (None: the child's now); its summary.
    PublishError when the child fails."""
    spec = {
        "docs": docs_url,
        "options": docs_options,
        "artifacts_dir": str(artifacts_dir),
        "exclusions": sorted(exclusions),
        "report": report,
        "clock": clock.pinned(),
        "at": at.strftime(clock.FORMAT) if at is not None else None,
    }
    # The child finds this code where the parent did (an egg under Scrapyd is on sys.path, not installed).
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    try:  # the spec goes on stdin, not argv: it may hold the store's credentials
        done = subprocess.run(
            [sys.executable, "-m", "landing.publish", "--export"],
            input=json.dumps(spec),
            capture_output=True,
            text=True,
            env=env,
        )
    except OSError as error:
        raise PublishError(f"the export's child process could not start: {error}") from None
    # What the child logged (drawing failures...), in the crawl's log; a failed child's traceback only at DEBUG,
    # its last line being the error raised.
    for line in done.stderr.splitlines():
        if line.strip():
            logger.log(logging.WARNING if done.returncode == 0 else logging.DEBUG, "export: %s", line)
    if done.returncode != 0:
        last = done.stderr.strip().splitlines()[-1:] or [f"exit status {done.returncode}"]
        raise PublishError(f"the export failed: {last[0]}")
    return json.loads(done.stdout)


def export_from_spec(text: str) -> int:
    """The child's side: export as the JSON spec says, print the summary as JSON; the exit status."""
    from landing.publish import publish  # here: landing.publish imports this module

    logging.basicConfig(level=logging.WARNING, stream=sys.stderr, format="%(message)s")
    spec = json.loads(text)
    clock.set_clock(*spec["clock"])
    try:
        docs = open_docs(spec["docs"], **spec["options"])
        try:
            summary = publish(
                docs,
                spec["artifacts_dir"],
                exclusions=frozenset(spec["exclusions"]),
                report=spec["report"],
                now=spec.get("at") and datetime.strptime(spec["at"], clock.FORMAT).replace(tzinfo=UTC),
            )
        finally:
            docs.close()
    except (StoreError, ArtifactError) as error:
        print(error, file=sys.stderr)
        return FAILED
    except OSError as error:  # an artifacts directory it cannot write: a file in the way, a full or read-only disk
        print(f"cannot write the artifacts: {describe(error)}", file=sys.stderr)
        return FAILED
    print(json.dumps(summary))
    return 0
