"""A local S3 for the demo and the tests: moto's server as a separate process on a free port."""

import socket
import subprocess
import sys
import time
from pathlib import Path

import boto3

CREDENTIALS = {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing", "AWS_DEFAULT_REGION": "us-east-1"}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start(timeout: float = 60) -> tuple[str, subprocess.Popen]:
    """(endpoint URL, process) of a fresh moto S3 server; the caller terminates the process."""
    port = _free_port()
    server = Path(sys.executable).parent / "moto_server"
    process = subprocess.Popen(
        [str(server), "-H", "127.0.0.1", "-p", str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    deadline = time.monotonic() + timeout
    # Readiness, not timing: poll until the port answers or the process dies.
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"moto_server exited with {process.returncode}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return f"http://127.0.0.1:{port}", process
        except OSError:
            time.sleep(0.05)
    process.terminate()
    raise RuntimeError(f"moto_server did not listen on port {port} within {timeout:.0f} s")


def environment(endpoint: str) -> dict:
    """What boto3 needs to reach the server: AWS_ENDPOINT_URL and throwaway credentials."""
    return {"AWS_ENDPOINT_URL": endpoint, **CREDENTIALS}


def bucket(endpoint: str, name: str) -> str:
    """Create (once) and name a bucket on the server."""
    client = boto3.client(
        "s3",
        endpoint_url=endpoint,
        aws_access_key_id="testing",
        aws_secret_access_key="testing",
        region_name="us-east-1",
    )
    if name not in {b["Name"] for b in client.list_buckets().get("Buckets", [])}:
        client.create_bucket(Bucket=name)
    client.close()
    return name
