"""A throw-away redis-server (Debian's) on a free port, no persistence, for the shared-frontier tests."""

import os
import socket
import subprocess
import time
from contextlib import contextmanager

import pytest

REDIS_SERVER = "/usr/bin/redis-server"


@contextmanager
def running_redis(directory):
    """Start redis-server in `directory`; yields its redis:// URL, stops it after."""
    if not os.access(REDIS_SERVER, os.X_OK):
        pytest.skip(f"{REDIS_SERVER} not installed (apt-get install redis-server)")
    import redis

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    process = subprocess.Popen(
        [
            REDIS_SERVER,
            "--port",
            str(port),
            "--bind",
            "127.0.0.1",
            "--save",
            "",
            "--appendonly",
            "no",
            "--dir",
            str(directory),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"redis://127.0.0.1:{port}/0"
    client = redis.Redis.from_url(url)
    deadline = time.monotonic() + 10
    try:
        while True:
            try:
                client.ping()
                break
            except redis.ConnectionError:
                if process.poll() is not None or time.monotonic() > deadline:
                    pytest.fail(f"redis-server did not answer PING on port {port}")
                time.sleep(0.02)
        yield url
    finally:
        client.close()
        process.terminate()
        process.wait(10)
