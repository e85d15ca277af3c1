"""This test session's moto S3 server (landing_dev.local_s3), started on first use and stopped at exit."""

import atexit

from landing_dev import local_s3 as moto

_running = {}


def endpoint() -> str:
    if "url" not in _running:
        url, process = moto.start()
        atexit.register(process.terminate)
        _running["url"] = url
    return _running["url"]


def environment() -> dict:
    return moto.environment(endpoint())


def bucket(name: str) -> str:
    return moto.bucket(endpoint(), name)


def use(monkeypatch) -> None:
    """Point boto3 in this test process at the server."""
    for key, value in environment().items():
        monkeypatch.setenv(key, value)
