"""bench.scratch: the scratch folder every benchmark runs in."""

import signal
import subprocess
import sys
from pathlib import Path

from landing_dev.runner import PROJECT

CHILD = """
import sys
from bench.scratch import scratch
with scratch("landing-test-scratch-", keep=False) as tmp:
    try:
        (tmp / "store").write_text("x")
        print(tmp, flush=True)
        sys.stdin.readline()
    finally:
        print("server stopped", flush=True)
"""


def test_a_sigterm_runs_the_benchmarks_finally_blocks_and_removes_its_scratch():
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD], cwd=PROJECT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    tmp = Path(child.stdout.readline().strip())
    assert (tmp / "store").read_text() == "x"
    child.send_signal(signal.SIGTERM)
    rest, _ = child.communicate(timeout=60)
    assert (rest, child.returncode, tmp.exists()) == ("server stopped\n", 128 + signal.SIGTERM, False)


def test_a_kept_scratch_stays_and_is_named():
    out = subprocess.run(
        [sys.executable, "-c", CHILD.replace("keep=False", "keep=True")],
        cwd=PROJECT,
        input="\n",
        capture_output=True,
        text=True,
        timeout=60,
    ).stdout.splitlines()
    tmp = Path(out[0])
    try:
        assert out[1:] == ["server stopped", f"# kept {tmp}"] and (tmp / "store").exists()
    finally:
        (tmp / "store").unlink()
        tmp.rmdir()
