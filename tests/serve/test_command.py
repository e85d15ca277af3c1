"""`scrapy serve` when it cannot serve (it says why and exits, rather than run a matcher nobody can reach), and when it
is told twice to stop."""

import os
import signal
import socket
from concurrent.futures import ThreadPoolExecutor

from landing_dev import runner
from tests import forked
from tests.sampler.crawling import PROJECT
from tests.serve.serving import Served, get, match, wait_until


def test_a_port_already_taken_is_named_and_the_service_exits_1(tmp_path):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        command = runner.scrapy_command("serve", "--port", port, settings={"LANDING_ARTIFACTS_DIR": tmp_path})
        done = forked.run(command, PROJECT, None, timeout=120)
    assert done.returncode == 1, done.stderr[-3000:]
    assert f"cannot listen on 127.0.0.1 port {port}" in done.stderr
    assert "Serving on" not in done.stderr


def test_a_second_sigterm_while_draining_ends_the_inputs_in_flight_with_503_and_exits_at_once(tmp_path):
    with socket.socket() as silent:  # a page that never answers: the input stays in flight until it is ended
        silent.bind(("127.0.0.1", 0))
        silent.listen()
        page = f"http://127.0.0.1:{silent.getsockname()[1]}/page"
        settings = ["-s", f"LANDING_ARTIFACTS_DIR={tmp_path}", "-s", "LANDING_ADDRESS_GUARD=False"]
        settings += ["-s", "ROBOTSTXT_OBEY=False", "-s", "TUNING_SERVE_DRAIN_SECONDS=600"]
        service = Served(settings, dict(os.environ))
        try:
            url = service.wait_serving()
            with ThreadPoolExecutor(1) as pool:
                answer = pool.submit(match, url, page, "all")  # no artifact names its host: fetched only so
                wait_until("the input in flight", lambda: get(f"{url}/healthz")[1]["in_flight"] == 1)
                service.process.send_signal(signal.SIGTERM)
                service.wait_logged("draining")
                service.process.send_signal(signal.SIGTERM)
                status, body = answer.result()
            assert (service.process.wait(30), status, body["status"]) == (128 + signal.SIGTERM, 503, 503)
        finally:
            service.close()
