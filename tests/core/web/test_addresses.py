"""landing.core.web.addresses: which addresses a crawler must not reach, and hosts that name one literally."""

import pytest

from landing.core.web.addresses import forbidden, literal_address, local_name

REFUSED = [
    ("169.254.169.254", "cloud-metadata"),
    ("169.254.170.2", "cloud-metadata"),
    ("100.100.100.200", "cloud-metadata"),
    ("168.63.129.16", "cloud-metadata"),
    ("fd00:ec2::254", "cloud-metadata"),
    ("::ffff:169.254.169.254", "cloud-metadata"),
    ("127.0.0.1", "loopback"),
    ("127.255.255.254", "loopback"),
    ("::1", "loopback"),
    ("::ffff:127.0.0.1", "loopback"),
    ("2002:7f00:1::", "loopback"),  # 6to4 around 127.0.0.1
    ("64:ff9b::7f00:1", "loopback"),  # NAT64 around 127.0.0.1
    ("0.0.0.0", "unspecified"),
    ("0.1.2.3", "unspecified"),
    ("::", "unspecified"),
    ("10.0.0.5", "private"),
    ("172.16.0.1", "private"),
    ("172.31.255.255", "private"),
    ("192.168.1.1", "private"),
    ("::ffff:10.1.2.3", "private"),
    ("2002:c0a8:101::1", "private"),  # 6to4 around 192.168.1.1
    ("64:ff9b::a00:1", "private"),  # NAT64 around 10.0.0.1
    ("64:ff9b:1::1", "private"),
    ("fc00::1", "private"),
    ("fd12:3456:789a::1", "private"),
    ("fec0::1", "private"),
    ("100.64.0.1", "shared"),
    ("100.127.255.254", "shared"),
    ("169.254.1.1", "link-local"),
    ("fe80::1", "link-local"),
    ("fe80::1%eth0", "link-local"),
    ("224.0.0.1", "multicast"),
    ("239.255.255.250", "multicast"),
    ("ff02::1", "multicast"),
    ("255.255.255.255", "reserved"),
    ("240.0.0.1", "reserved"),
    ("192.0.2.10", "reserved"),
    ("198.18.0.1", "reserved"),
    ("203.0.113.7", "reserved"),
    ("::127.0.0.1", "reserved"),  # deprecated IPv4-compatible form
    ("2001:db8::1", "reserved"),
    ("2001::1", "reserved"),  # Teredo
    ("100::1", "reserved"),
]
PUBLIC = [
    "93.184.215.14",
    "8.8.8.8",
    "1.1.1.1",
    "172.32.0.1",
    "100.128.0.1",
    "169.255.0.1",
    "2606:4700::6810:84e5",
    "2a00:1450:4001:80b::200e",
    "::ffff:93.184.215.14",
    "64:ff9b::808:808",
    "2002:808:808::1",
]


@pytest.mark.parametrize("ip,reason", REFUSED)
def test_forbidden_names_the_reason(ip, reason):
    assert forbidden(ip) == reason


@pytest.mark.parametrize("ip", PUBLIC)
def test_public_addresses_are_allowed(ip):
    assert forbidden(ip) is None


def test_a_non_address_is_an_error():
    with pytest.raises(ValueError):
        forbidden("example.org")


@pytest.mark.parametrize(
    "host,address",
    [
        ("127.0.0.1", "127.0.0.1"),
        ("[::1]", "::1"),
        ("::1", "::1"),
        ("[::ffff:127.0.0.1]", "::ffff:7f00:1"),
        ("[FD00:EC2::254]", "fd00:ec2::254"),
        ("2130706433", "127.0.0.1"),
        ("0x7f000001", "127.0.0.1"),
        ("0x7f.1", "127.0.0.1"),
        ("0177.0.0.1", "127.0.0.1"),
        ("127.1", "127.0.0.1"),
        ("127.0.1", "127.0.0.1"),
        ("0", "0.0.0.0"),
        ("0xA9.0xFE.0xA9.0xFE", "169.254.169.254"),
        ("2852039166", "169.254.169.254"),
        ("10.0.0.5.", "10.0.0.5"),
        ("1.2.3.4", "1.2.3.4"),
    ],
)
def test_literal_address_reads_every_form(host, address):
    assert literal_address(host) == address


@pytest.mark.parametrize(
    "host",
    [
        "example.org",
        "doi.org",
        "localhost",
        "08.1.1.1",
        "0x",
        "4294967296",
        "256.1.1.1",
        "1.2.3.4.5",
        "127.0.0.1 x",
        "1..2",
        "",
        "[example.org]",
        "0x7g.1",
    ],
)
def test_literal_address_is_none_for_names_and_malformed_hosts(host):
    assert literal_address(host) is None


@pytest.mark.parametrize(
    "host,reason",
    [
        ("localhost", "loopback"),
        ("LOCALHOST.", "loopback"),
        ("app.localhost", "loopback"),
        ("ip6-localhost", "loopback"),
        ("metadata.google.internal", "cloud-metadata"),
        ("metadata", "cloud-metadata"),
        ("instance-data.ec2.internal", "cloud-metadata"),
        ("example.org", None),
        ("localhost.example.org", None),
        ("notlocalhost", None),
    ],
)
def test_local_name(host, reason):
    assert local_name(host) == reason
