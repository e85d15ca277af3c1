"""`scrapy sandbox serve` stops at once on SIGINT (Ctrl-C) or SIGTERM, whatever signal dispositions it inherited."""

import signal
import subprocess

import pytest

from landing_dev.runner import PROJECT, scrapy_command


def _ignoring_sigint():
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # as pytest-xdist's workers run: inherited across exec


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_the_server_stops_and_exits_0_on_the_signal_even_when_started_with_sigint_ignored(small_world, signum):
    server = subprocess.Popen(
        scrapy_command("sandbox", "serve", small_world, "--port", 0),
        cwd=PROJECT,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        preexec_fn=_ignoring_sigint,
    )
    try:
        assert server.stdout.readline().startswith("http://127.0.0.1:")
        server.send_signal(signum)
        assert server.wait(60) == 0
    finally:
        server.kill()
        server.wait()
        server.stdout.close()
