"""tests/forked.py: a command forked from the server ends, prints and exits as the same command run plainly."""

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests import forked

PROJECT = Path(__file__).resolve().parents[1]
SCRIPT = """
import os, sys
print(__name__, sys.argv[1:], sys.path[0] == "", os.getcwd(), os.environ.get("FORKED_TEST"))
print("tests" in sys.modules, file=sys.stderr)
sys.exit(3)
"""


def _plain(command, cwd, env):
    return subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=120, env=env)


def test_a_scrapy_command_exits_and_prints_as_the_same_command_run_plainly():
    command = [sys.executable, "-m", "scrapy", "sandbox", "frobnicate", "x"]
    done = forked.run(command, PROJECT, os.environ, 120)
    plain = _plain(command, PROJECT, os.environ)
    assert (done.returncode, done.stdout, done.stderr) == (plain.returncode, plain.stdout, plain.stderr)
    assert done.returncode == 2 and "expected:" in done.stderr


def test_a_script_runs_as_its_own_main_in_its_directory_and_environment_with_its_exit_status(tmp_path):
    command, env = [sys.executable, "-c", SCRIPT, "a", "b c"], {**os.environ, "FORKED_TEST": "yes"}
    done = forked.run(command, tmp_path, env, 120)
    plain = _plain(command, tmp_path, env)
    assert (done.returncode, done.stdout, done.stderr) == (plain.returncode, plain.stdout, plain.stderr)
    assert done.stdout == f"__main__ ['a', 'b c'] True {tmp_path} yes\n" and done.stderr == "False\n"
    assert done.returncode == 3


def test_a_command_past_its_timeout_is_killed_and_raises_as_subprocess_run_does():
    command = [sys.executable, "-c", "import time; time.sleep(60)"]
    with pytest.raises(subprocess.TimeoutExpired):
        forked.run(command, PROJECT, os.environ, 0.5)
    assert forked.run([sys.executable, "-c", "pass"], PROJECT, os.environ, 120).returncode == 0  # the server goes on


def test_an_environment_that_changes_how_python_starts_runs_the_command_plainly(tmp_path):
    command, env = [sys.executable, "-c", "print(hash('landing'))"], {**os.environ, "PYTHONHASHSEED": "7"}
    assert forked.run(command, tmp_path, env, 120).stdout == _plain(command, tmp_path, env).stdout  # seed 7's hash


def _started(script, **options):
    command = [sys.executable, "-c", script]
    return forked.popen(command, **options), subprocess.Popen(command, **options)


def test_a_started_command_is_its_own_process_and_its_exit_by_a_signal_shows_as_popens_does():
    started = _started("import os, time; print(os.getpid(), flush=True); time.sleep(60)", stdout=subprocess.PIPE)
    assert isinstance(started[0], forked.Process)
    for process in started:
        with process:
            assert int(process.stdout.readline()) == process.pid
            with pytest.raises(subprocess.TimeoutExpired):
                process.wait(0.1)
            assert process.poll() is None
            process.kill()
            assert process.wait(60) == -signal.SIGKILL
    assert started[0].returncode == started[1].returncode == -signal.SIGKILL


def test_a_signal_reaches_the_commands_own_handler():
    script = "import signal, sys, time\nsignal.signal(signal.SIGTERM, lambda *_: sys.exit(7))\nprint(1, flush=True)\n"
    script += "time.sleep(60)"
    for process in _started(script, stdout=subprocess.PIPE, text=True):
        with process:
            assert process.stdout.readline() == "1\n"  # its handler is set
            process.terminate()
            assert process.wait(60) == 7


def test_the_server_runs_one_thread_so_no_child_inherits_a_lock_another_thread_held():
    assert forked.run([sys.executable, "-c", "pass"], PROJECT, os.environ, 120).returncode == 0  # it has preloaded
    assert forked.threads(forked._server().process.pid) == 1


def test_communicate_writes_stdin_and_reads_both_pipes_or_stderr_merged_as_popens_does():
    script = "import sys; print(sys.stdin.read().upper()); print('err', file=sys.stderr)"
    pipes = {"stdin": subprocess.PIPE, "stdout": subprocess.PIPE, "text": True}
    done = [
        p.communicate("abc", timeout=60) + (p.returncode,) for p in _started(script, stderr=subprocess.PIPE, **pipes)
    ]
    assert done[0] == done[1] == ("ABC\n", "err\n", 0)
    merged = [p.communicate("x", timeout=60)[0] for p in _started(script, stderr=subprocess.STDOUT, **pipes)]
    assert merged[0] == merged[1] == "X\nerr\n"
