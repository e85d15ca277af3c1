"""landing.crawl.handlers: the connection pool holds few idle connections, closing the one idle longest first."""

from types import SimpleNamespace

from scrapy.settings import Settings
from scrapy.utils.reactor import install_reactor, is_reactor_installed
from scrapy.utils.test import get_crawler
from twisted.internet.task import Clock

from landing.crawl.handlers import CappedPool, HttpHandler, persistent_per_host
from tests.crawl.project import PROJECT


class Connection:
    state = "QUIESCENT"

    def __init__(self):
        self.closed = False
        self.transport = SimpleNamespace(loseConnection=self.close)

    def close(self):
        self.closed = True


def test_past_max_idle_the_connection_idle_longest_is_closed_whatever_its_host():
    pool = CappedPool(Clock(), max_idle=2)
    a, b, c = Connection(), Connection(), Connection()
    pool._putConnection(("https", "a.example", 443), a)
    pool._putConnection(("https", "b.example", 443), b)
    pool._putConnection(("https", "a.example", 443), c)
    assert (a.closed, b.closed, c.closed) == (True, False, False)
    assert pool._connections[("https", "a.example", 443)] == [c] and len(pool._timeouts) == 2


def test_an_idle_connection_is_closed_after_the_keepalive():
    clock = Clock()
    pool = CappedPool(clock, max_idle=10)
    pool.cachedConnectionTimeout = 60
    a = Connection()
    pool._putConnection(("https", "a.example", 443), a)
    clock.advance(59)
    assert not a.closed
    clock.advance(1)
    assert a.closed and not pool._timeouts


def test_the_handler_pool_takes_its_limits_from_the_settings():
    if not is_reactor_installed():  # the handler needs one; the project's, as a crawl installs it
        install_reactor(PROJECT["TWISTED_REACTOR"])
    crawler = get_crawler(
        settings_dict={
            **PROJECT,
            "TUNING_KEEPALIVE": 5,
            "TUNING_IDLE_CONNECTIONS": 7,
            "CONCURRENT_REQUESTS_PER_DOMAIN": 3,
            "DOWNLOAD_SLOTS": {},
        }
    )
    pool = HttpHandler(crawler)._pool
    assert isinstance(pool, CappedPool)
    assert (pool.cachedConnectionTimeout, pool.max_idle, pool.maxPersistentPerHost) == (5, 7, 6)


def test_a_host_keeps_twice_its_largest_slot_of_idle_connections():
    settings = Settings(
        {
            "CONCURRENT_REQUESTS_PER_DOMAIN": 4,
            "DOWNLOAD_SLOTS": {"doi.org": {"concurrency": 32, "delay": 0}, "a.example": {"delay": 1}},
        }
    )
    assert persistent_per_host(settings) == 64


def test_a_host_reuses_its_most_recently_returned_connection_first():
    pool = CappedPool(Clock(), max_idle=10)
    a, b = Connection(), Connection()
    pool._putConnection(("https", "a.example", 443), a)
    pool._putConnection(("https", "a.example", 443), b)
    assert pool._connections[("https", "a.example", 443)] == [b, a]  # Twisted takes the first


def _handler(**settings):
    if not is_reactor_installed():
        install_reactor(PROJECT["TWISTED_REACTOR"])
    return HttpHandler(get_crawler(settings_dict={**PROJECT, **settings}))


def _connection(handler, host):
    """The TLS options Scrapy's agent would use for host, and the OpenSSL connection they make."""
    from OpenSSL import SSL
    from twisted.internet.protocol import ClientFactory, Protocol
    from twisted.protocols.tls import TLSMemoryBIOFactory, TLSMemoryBIOProtocol

    creator = handler._contextFactory.creatorForNetloc(host, 443)
    protocol = TLSMemoryBIOProtocol(TLSMemoryBIOFactory(creator, True, ClientFactory()), Protocol())
    return creator, creator.clientConnectionForTLS(protocol), SSL


def test_tls_connections_to_different_hosts_share_one_openssl_context():
    handler = _handler()
    (_, a, _), (_, b, _) = _connection(handler, b"a.example"), _connection(handler, b"b.example")
    assert a.get_context() is b.get_context()


def test_without_certificate_verification_a_connection_checks_nothing_but_still_names_its_host():
    _, connection, SSL = _connection(_handler(), b"a.example")
    assert connection.get_verify_mode() == SSL.VERIFY_NONE
    assert connection.get_servername() == b"a.example"  # SNI: virtual hosts still serve the right site


def test_with_certificate_verification_scrapys_checking_connection_is_kept():
    creator, connection, SSL = _connection(_handler(DOWNLOAD_VERIFY_CERTIFICATES=True), b"a.example")
    assert type(creator).__name__ != "_UncheckedTLSOptions"
    assert connection.get_verify_mode() & SSL.VERIFY_PEER


def test_a_connection_twisted_refuses_leaves_the_hosts_idle_ones_as_they_were():
    pool = CappedPool(Clock(), max_idle=10)
    a, busy = Connection(), Connection()
    busy.state = "TRANSMITTING"
    pool._putConnection(("https", "a.example", 443), a)
    pool._putConnection(("https", "a.example", 443), busy)
    pool._putConnection(("https", "b.example", 443), busy)
    assert (pool._connections[("https", "a.example", 443)], ("https", "b.example", 443) in pool._connections) == (
        [a],
        False,
    )
