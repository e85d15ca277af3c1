"""`python -m MODULE ...` (`scrapy` most often) or `python -c SCRIPT`, in a process of its own forked from one that has
imported Scrapy once.

A scrapy process spends about a CPU-second importing Scrapy, Twisted, lxml and redis before it reads its arguments,
and the suite runs hundreds of them. A fork server (this module run as `python -m tests.forked`, one per test process,
started at first use) has imported those libraries and nothing of the project, installed no reactor and started no
thread. For each command it forks a child that starts from where a fresh `python -m scrapy` would be once its imports
are done, then runs the module or script with the command's arguments, working directory, environment and standard
streams (passed over a Unix socket as file descriptors), and exits as a Python process does (threads joined, atexit,
exit status). `run` runs a command to its end, as `subprocess.run` does; `popen` starts one and hands back a
`Process`, which a test signals and waits on as it would a `subprocess.Popen`: the signals reach the command's own
process (through a pidfd, never a recycled pid), and one killed by a signal has `returncode` -N. A command the server
cannot stand for (an interpreter option, an environment that changes how Python starts) runs as a plain subprocess.
"""

import atexit
import io
import json
import os
import runpy
import select
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
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
    # Imported by the project's commands, not by Scrapy itself: about half a CPU-second more per command.
    "aiohttp.web",
    "tldextract",
    "itemadapter",
    "prometheus_client",
)
MESSAGE = 1 << 20  # the largest request (arguments and environment) or answer, in bytes


def run(command: list[str], cwd, env: dict, timeout: float) -> subprocess.CompletedProcess:
    """subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout), forked from the
    server when it can be."""
    if not forkable(command, env):
        return subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=timeout, env=env)
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        process = Process(command, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=out, stderr=err)
        try:
            returncode = process.wait(timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
            raise
        texts = []
        for file in (out, err):
            file.seek(0)
            texts.append(io.TextIOWrapper(file, errors="replace").read())
    return subprocess.CompletedProcess(command, returncode, *texts)


def popen(command: list[str], **options):
    """subprocess.Popen(command, **options): a `Process` forked from the server when it can be. Options: cwd, env,
    stdin, stdout, stderr (None, PIPE, DEVNULL, STDOUT for stderr, a file or a descriptor) and text."""
    if not forkable(command, options.get("env")):
        return subprocess.Popen(command, **options)
    return Process(command, **options)


def forkable(command: list[str], env) -> bool:
    """`python -m MODULE` or `python -c SCRIPT` (no interpreter option), with an environment that starts Python as
    the server's did."""
    environment = os.environ if env is None else env
    return (
        command[:1] == [sys.executable]
        and command[1:2] in (["-m"], ["-c"])
        and len(command) > 2
        and (_python_env(environment) == _python_env(os.environ))
    )


def _python_env(env) -> dict:
    return {name: value for name, value in env.items() if name.startswith("PYTHON")}


class Process:
    """A command forked from the server, with the part of subprocess.Popen's interface the suite uses."""

    def __init__(self, args, cwd=None, env=None, stdin=None, stdout=None, stderr=None, text=False):
        self.args, self.returncode = args, None
        self.stdin = self.stdout = self.stderr = None
        ends, opened = [], []  # the child's descriptors; those of them this process opened, closed once sent
        for n, (option, name) in enumerate(((stdin, "stdin"), (stdout, "stdout"), (stderr, "stderr"))):
            if option is None and _open(n):
                ends.append(n)  # inherited, as Popen's child inherits this process's
            elif option is None or option == subprocess.DEVNULL:  # None: this process has that stream closed
                opened.append(os.open(os.devnull, os.O_RDWR))
                ends.append(opened[-1])
            elif option == subprocess.STDOUT and n == 2:
                ends.append(ends[1])
            elif option == subprocess.PIPE:
                read, write = os.pipe()
                ours, theirs = (write, read) if n == 0 else (read, write)
                opened.append(theirs)
                ends.append(theirs)
                file = open(ours, "wb" if n == 0 else "rb")  # noqa: SIM115  # closed as Popen's are, by the caller
                setattr(self, name, io.TextIOWrapper(file, write_through=n == 0) if text else file)
            else:
                ends.append(option if isinstance(option, int) else option.fileno())
        try:
            self.pid, self._pidfd, self._exited = _server().start(args, str(cwd or os.getcwd()), env, ends)
        finally:
            for fd in opened:
                os.close(fd)
        self._readers, self._pidfd_lock = None, threading.Lock()

    def poll(self):
        with self._pidfd_lock:  # the pidfd closed once the status is in, never while a signal goes through it
            if self.returncode is None and self._exited.done():
                self.returncode = self._exited.result()
                os.close(self._pidfd)
            return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        try:
            self._exited.result(timeout)
        except TimeoutError:
            raise subprocess.TimeoutExpired(self.args, timeout) from None
        return self.poll()

    def send_signal(self, signum: int) -> None:
        with self._pidfd_lock:
            if self.returncode is None:
                try:
                    signal.pidfd_send_signal(self._pidfd, signum)
                except ProcessLookupError:
                    pass  # it has just exited: the server is answering its status

    def terminate(self) -> None:
        self.send_signal(signal.SIGTERM)

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)

    def communicate(self, input=None, timeout: float | None = None):  # noqa: A002  # Popen's name
        """(stdout, stderr) once the command ended, each None unless a pipe; `input` written to a stdin pipe."""
        if self._readers is None:  # a call again after a timeout goes on with the same readers

            def read(name):
                with getattr(self, name) as file:
                    self._found[name] = file.read()

            def write():
                with self.stdin:
                    if input:
                        self.stdin.write(input)

            self._found, targets = {}, [(write, ())] if self.stdin else []
            targets += [(read, (name,)) for name in ("stdout", "stderr") if getattr(self, name)]
            self._readers = [threading.Thread(target=t, args=a, daemon=True) for t, a in targets]
            for reader in self._readers:
                reader.start()
        deadline = None if timeout is None else time.monotonic() + timeout
        for reader in self._readers:
            reader.join(None if deadline is None else max(0, deadline - time.monotonic()))
            if reader.is_alive():
                raise subprocess.TimeoutExpired(self.args, timeout)
        self.wait(None if deadline is None else max(0, deadline - time.monotonic()))
        return self._found.get("stdout"), self._found.get("stderr")

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        for file in (self.stdin, self.stdout, self.stderr):
            if file is not None:
                file.close()
        self.wait()


def _open(fd: int) -> bool:
    try:
        os.fstat(fd)
    except OSError:
        return False
    return True


class _Server:
    """The fork server of this process: requests (JSON, with the child's three descriptors) and answers (a child's
    pid with its pidfd, then its exit status) as messages on a Unix socket."""

    def __init__(self):
        self.channel, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        with theirs:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "tests.forked", str(theirs.fileno())],
                cwd=PROJECT,
                stdin=subprocess.DEVNULL,
                pass_fds=[theirs.fileno()],
            )
        self.lock, self.waiting, self.next = threading.Lock(), {}, 0
        threading.Thread(target=self._answers, daemon=True).start()
        atexit.register(self.close)

    def close(self):
        """End the server (its children are done by then) and reap it, so its CPU is counted as this process's."""
        self.channel.shutdown(socket.SHUT_WR)
        self.process.wait()

    def start(self, command, cwd, env, ends) -> tuple[int, int, Future]:
        """Fork `command` with `ends` as its stdin, stdout and stderr: (pid, pidfd, its exit status to come)."""
        started, exited = Future(), Future()
        request = {"argv": command[1:], "cwd": cwd, "env": dict(os.environ if env is None else env)}
        with self.lock:
            self.next += 1
            self.waiting[key := self.next] = (started, exited)
            socket.send_fds(self.channel, [json.dumps({"key": key, **request}).encode()], ends)
        return (*started.result(), exited)

    def _answers(self):
        while True:
            try:
                message, fds, _, _ = socket.recv_fds(self.channel, MESSAGE, 1)
            except ConnectionResetError:  # the server died with a request unread: gone all the same
                message = b""
            if not message:
                break
            answer = json.loads(message)
            if "pid" in answer:
                self.waiting[answer["key"]][0].set_result((answer["pid"], fds[0]))
            else:
                self.waiting.pop(answer["key"])[1].set_result(answer["returncode"])
        for futures in list(self.waiting.values()):  # the server is gone: say so rather than wait for ever
            for future in futures:
                if not future.done():
                    future.set_exception(RuntimeError(f"the fork server exited with {self.process.wait()}"))


_SERVER, _STARTING = None, threading.Lock()


def _server() -> _Server:
    global _SERVER
    with _STARTING:
        if _SERVER is None or _SERVER.process.poll() is not None:
            _SERVER = _Server()
        return _SERVER


def _serve(channel: socket.socket) -> None:
    """The server's loop: fork a child per request, answer its pid, then its exit status once it ends."""
    for name in PRELOAD:
        __import__(name)
    assert "twisted.internet.reactor" not in sys.modules
    # fork() copies the calling thread only: a thread a library started at import (OpenBLAS's pool, under
    # scipy.stats) leaves what it held locked in every child, which then hangs, most often at its exit.
    assert threads() == 1, f"the fork server runs {threads()} threads after importing {PRELOAD}: fork() is unsafe"
    children = {}  # {pidfd: (key, pid)}
    while True:
        ready, _, _ = select.select([channel, *children], [], [])
        for pidfd in [fd for fd in ready if fd in children]:
            key, pid = children.pop(pidfd)
            os.close(pidfd)
            _, status = os.waitpid(pid, 0)
            _answer(channel, {"key": key, "returncode": os.waitstatus_to_exitcode(status)})
        if channel not in ready:
            continue
        message, ends, _, _ = socket.recv_fds(channel, MESSAGE, 3)
        if not message:
            return  # the test process is gone: its children end with their own pipes and timeouts
        request = json.loads(message)
        pid = os.fork()
        if pid == 0:
            channel.detach()  # closed with the server's other descriptors, never again by this object
            _become(request, ends)  # returns only into the child's command
            return
        for fd in ends:
            os.close(fd)
        pidfd = os.pidfd_open(pid)
        children[pidfd] = (request["key"], pid)
        _answer(channel, {"key": request["key"], "pid": pid}, [pidfd])


def threads(pid: int | str = "self") -> int:
    """The threads a process runs, native ones included (threading counts only Python's)."""
    return len(os.listdir(f"/proc/{pid}/task"))


def _answer(channel, message, fds=()) -> None:
    socket.send_fds(channel, [json.dumps(message).encode()], list(fds))


def _become(request, ends) -> None:
    """In the child: the request's streams, directory and environment, then its module or script as `python` runs it."""
    for fd, target in zip(ends, (0, 1, 2), strict=True):
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
    _serve(socket.socket(fileno=int(sys.argv[1])))
