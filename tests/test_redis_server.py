"""tests/redis_server.py: the throw-away redis-server the shared-frontier tests start, safe beside other workers'."""

import redis

from tests.redis_server import RedisServer, redis_process


def test_a_first_start_whose_port_another_server_holds_moves_to_a_free_port_of_its_own(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    with redis_process(tmp_path / "a") as other:
        server = RedisServer(tmp_path / "b")
        server.port, server.url = other.port, other.url  # as if another xdist worker took the port meanwhile
        server.start()
        try:
            with redis.Redis.from_url(server.url) as client:
                assert (server.port != other.port, client.info("server")["process_id"]) == (True, server.process.pid)
        finally:
            server.stop()
