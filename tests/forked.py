"""`python -m scrapy ...` (or `python -c SCRIPT`) run to its end, in a process of its own forked from one that has
imported Scrapy once.

A scrapy process spends about a CPU-second importing Scrapy, Twisted, lxml and redis before it reads its arguments,
and the suite runs hundreds of them. `run` hands the command to a fork server (this module run as `python -m
tests.forked`, one per test process, started at first use): it has imported those libraries and nothing of the
project, installed no reactor and started no thread, so each command's process starts from where a fresh `python -m
scrapy` would be once its imports are done, then runs Scrapy's entry point with its own arguments, working directory,
environment and output files, and exits as a Python process does (threads joined, atexit, exit status). A command
the server cannot stand for (an interpreter option, an environment that changes how Python starts) runs as a plain
subprocess.
"""

import atexit
import json
import os
import runpy
import select
import signal
import subprocess
import sys
import tempfile
import threading
import types
from concurrent.futures import Future
from pathlib import Path

PROJECT = Path(__file__).resolve().parents[1]
# What `python -m scrapy` imports before the project: the libraries whose import is the start-up's cost.
PRELOAD = (
    "scrapy.cmdline",
    "scrapy.crawler",
    "scrapy.http",
    "scrapy.spiders",
    "scrapy.core.engine",
    "scrapy.core.downloader.handlers.http11",
    "scrapy.core.downloader.contextfactory",
    "twisted.web.client",
    "lxml.html",
    "redis.asyncio",
)


def run(command: list[str], cwd, env: dict, timeout: float) -> subprocess.CompletedProcess:
    """subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout), forked from the
    server when `command` is `python -m scrapy ...` or `python -c SCRIPT ...` with an environment that starts Python
    as the server's did."""
    forkable = command[:3] == [sys.executable, "-m", "scrapy"] or command[:2] == [sys.executable, "-c"]
    if not forkable or _python_env(env) != _python_env(os.environ):
        return subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=timeout, env=env)
    return _server().run(command, str(cwd), env, timeout)


def _python_env(env) -> dict:
    return {name: value for name, value in env.items() if name.startswith("PYTHON")}


class _Server:
    """The fork server of this process: requests as JSON lines on its stdin, answers on its stdout."""

    def __init__(self):
        self.process = subprocess.Popen(
            [sys.executable, "-m", "tests.forked"], cwd=PROJECT, stdin=subprocess.PIPE, stdout=subprocess.PIPE
        )
        self.lock, self.waiting, self.next = threading.Lock(), {}, 0
        threading.Thread(target=self._answers, daemon=True).start()
        atexit.register(self.close)

    def close(self):
        """End the server (its children are done by then) and reap it, so its CPU is counted as this process's."""
        self.process.stdin.close()
        self.process.wait()

    def run(self, command, cwd, env, timeout) -> subprocess.CompletedProcess:
        with tempfile.TemporaryDirectory() as scratch:
            out, err, done = f"{scratch}/out", f"{scratch}/err", Future()
            with self.lock:
                self.next += 1
                self.waiting[key := self.next] = done
                self._send({"key": key, "argv": command[1:], "cwd": cwd, "env": dict(env), "out": out, "err": err})
            try:
                returncode = done.result(timeout)
            except TimeoutError:
                with self.lock:
                    self._send({"kill": key})
                done.result()
                raise subprocess.TimeoutExpired(command, timeout) from None
            stdout, stderr = Path(out).read_text(errors="replace"), Path(err).read_text(errors="replace")
        return subprocess.CompletedProcess(command, returncode, stdout, stderr)

    def _send(self, message):
        self.process.stdin.write(json.dumps(message).encode() + b"\n")
        self.process.stdin.flush()

    def _answers(self):
        for line in self.process.stdout:
            answer = json.loads(line)
            self.waiting.pop(answer["key"]).set_result(answer["returncode"])
        for done in list(self.waiting.values()):  # the server is gone: say so rather than wait for ever
            done.set_exception(RuntimeError(f"the fork server exited with {self.process.wait()}"))


_SERVER, _STARTING = None, threading.Lock()


def _server() -> _Server:
    global _SERVER
    with _STARTING:
        if _SERVER is None or _SERVER.process.poll() is not None:
            _SERVER = _Server()
        return _SERVER


def _serve() -> None:
    """The server's loop: fork a child per request, answer each child's exit status as it ends."""
    for name in PRELOAD:
        __import__(name)
    assert "twisted.internet.reactor" not in sys.modules and threading.active_count() == 1
    children, pending = {}, b""  # children: {pidfd: (key, pid)}; requests are read unbuffered, for select's sake
    while True:
        ready, _, _ = select.select([0, *children], [], [])
        for pidfd in [fd for fd in ready if fd in children]:
            key, pid = children.pop(pidfd)
            os.close(pidfd)
            _, status = os.waitpid(pid, 0)
            _answer({"key": key, "returncode": os.waitstatus_to_exitcode(status)})
        if 0 not in ready:
            continue
        read = os.read(0, 1 << 16)
        if not read:
            return  # the test process is gone: its children end with their own pipes and timeouts
        *lines, pending = (pending + read).split(b"\n")
        for request in map(json.loads, lines):
            if "kill" in request:
                for key, pid in children.values():
                    if key == request["kill"]:
                        os.kill(pid, signal.SIGKILL)
                continue
            pid = os.fork()
            if pid == 0:
                _become(request)  # returns only into the child's `python -m scrapy`
                return
            children[os.pidfd_open(pid)] = (request["key"], pid)


def _answer(message) -> None:
    sys.stdout.buffer.write(json.dumps(message).encode() + b"\n")
    sys.stdout.buffer.flush()


def _become(request) -> None:
    """In the child: the request's files, directory and environment, then Scrapy's entry point as `-m scrapy` runs it."""
    stdin = os.open(os.devnull, os.O_RDONLY)
    out = os.open(request["out"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    err = os.open(request["err"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    for fd, target in ((stdin, 0), (out, 1), (err, 2)):
        os.dup2(fd, target)
    os.closerange(3, 1 << 16)
    os.chdir(request["cwd"])
    os.environ.clear()
    os.environ.update(request["env"])
    for name in [name for name in sys.modules if name == "tests" or name.startswith("tests.")]:
        del sys.modules[name]  # the server's own package: a fresh process has imported none of the project
    option, target, *argv = request["argv"]
    if option == "-m":
        sys.path[0] = request["cwd"]  # as `python -m` puts its working directory first
        sys.argv = [target, *argv]
        runpy.run_module(target, run_name="__main__", alter_sys=True)
    else:  # -c: the script runs in a module __main__ of its own, `python -c`'s sys.path[0] and sys.argv
        sys.path[0], sys.argv = "", ["-c", *argv]
        sys.modules["__main__"] = main = types.ModuleType("__main__")
        exec(compile(target, "<string>", "exec"), main.__dict__)


if __name__ == "__main__":
    _serve()
