"""Benchmark helper: the scratch folder a benchmark writes its worlds, stores and logs in."""

import shutil
import signal
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


@contextmanager
def scratch(prefix: str, keep: bool) -> Iterator[Path]:
    """A fresh temporary folder, removed when the benchmark ends unless `keep` (then its path is printed).

    A SIGTERM ends the benchmark as an exception would, so that its `finally` blocks stop the sandbox servers and
    crawls it started rather than leave them running."""
    tmp = Path(tempfile.mkdtemp(prefix=prefix))
    previous = signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))
    try:
        yield tmp
    finally:
        signal.signal(signal.SIGTERM, previous)
        if keep:
            print(f"# kept {tmp}", flush=True)
        else:
            shutil.rmtree(tmp, ignore_errors=True)
