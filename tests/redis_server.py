"""A throw-away redis-server (Debian's) on a free port, for the shared-frontier tests; it can be stopped and
started again on the same port, with or without its data (an append-only file in its directory)."""

import os
import socket
import subprocess
import time
from contextlib import contextmanager

import pytest

REDIS_SERVER = "/usr/bin/redis-server"


class RedisServer:
    """One redis-server in `directory` on a port chosen free; `persist` keeps its data across a restart."""

    def __init__(self, directory, persist: bool = False):
        if not os.access(REDIS_SERVER, os.X_OK):
            pytest.skip(f"{REDIS_SERVER} not installed (apt-get install redis-server)")
        self.directory, self.persist = directory, persist
        self.process = None
        self._free_port()

    def _free_port(self) -> None:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        self.url = f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        """Start it and wait until it answers PING; a first start whose port was taken meanwhile (by a test on another
        xdist worker) moves to another free port, while a restart keeps its port."""
        first = self.process is None
        for _ in range(5 if first else 1):
            if self._started():
                return
            if first:
                self._free_port()
        pytest.fail(f"redis-server exited at start on port {self.port} (taken?)")

    def _started(self) -> bool:
        """Start it; True once it answers PING, False if it exited before (its port taken)."""
        import redis

        persistence = ["--appendonly", "yes", "--appendfsync", "always"] if self.persist else ["--appendonly", "no"]
        self.process = subprocess.Popen(
            [REDIS_SERVER, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", *persistence]
            + ["--dir", str(self.directory)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 10
        with redis.Redis.from_url(self.url, retry=None) as client:
            while True:
                try:
                    # Ours, not another worker's redis-server that holds the port.
                    if client.info("server")["process_id"] == self.process.pid:
                        return True
                    self.process.wait(10)
                    return False
                except (redis.ConnectionError, redis.BusyLoadingError):
                    if self.process.poll() is not None:
                        return False
                    if time.monotonic() > deadline:
                        pytest.fail(f"redis-server did not answer PING on port {self.port}")
                    time.sleep(0.02)  # polling for readiness, not waiting out a time

    def stop(self) -> None:
        """Stop it at once (SIGKILL: what a crash does; with `persist`, every write it acknowledged is on disk)."""
        self.process.kill()
        self.process.wait(10)


@contextmanager
def running_redis(directory, persist: bool = False):
    """Start redis-server in `directory`; yields its redis:// URL, stops it after."""
    with redis_process(directory, persist) as server:
        yield server.url


@contextmanager
def redis_process(directory, persist: bool = False):
    """Start redis-server in `directory`; yields the RedisServer, stops it after."""
    server = RedisServer(directory, persist)
    server.start()
    try:
        yield server
    finally:
        if server.process.poll() is None:
            server.process.terminate()
            server.process.wait(10)
