"""Addresses a crawler must not reach (loopback, private, link-local, cloud metadata ...). Strings in, reasons out."""

import ipaddress
import re
from urllib.parse import urlsplit

# First match wins, so the narrow entries come before the ranges that contain them: the metadata addresses
# sit inside link-local (169.254/16), shared (100.64/10) and unique-local (fc00::/7) ranges.
# An explicit table rather than ipaddress's is_private/is_global: those flags changed between Python patch
# releases, and 3.11 calls ::127.0.0.1, fec0::1 and 64:ff9b:1::1 global.
_V4 = [
    (ipaddress.ip_network(net), reason)
    for net, reason in (
        ("169.254.169.254/32", "cloud-metadata"),  # AWS, GCP, Azure, OCI, DigitalOcean ...
        ("169.254.170.2/32", "cloud-metadata"),  # AWS ECS task credentials
        ("100.100.100.200/32", "cloud-metadata"),  # Alibaba Cloud
        ("168.63.129.16/32", "cloud-metadata"),  # Azure WireServer: a public address that answers inside Azure
        ("0.0.0.0/8", "unspecified"),  # "this network": connecting to 0.0.0.0 reaches the local host
        ("127.0.0.0/8", "loopback"),
        ("10.0.0.0/8", "private"),
        ("172.16.0.0/12", "private"),
        ("192.168.0.0/16", "private"),
        ("100.64.0.0/10", "shared"),  # carrier-grade NAT (RFC 6598): someone's internal network
        ("169.254.0.0/16", "link-local"),
        ("224.0.0.0/4", "multicast"),
        ("192.0.0.0/24", "reserved"),
        ("192.0.2.0/24", "reserved"),
        ("192.88.99.0/24", "reserved"),
        ("198.18.0.0/15", "reserved"),
        ("198.51.100.0/24", "reserved"),
        ("203.0.113.0/24", "reserved"),
        ("240.0.0.0/4", "reserved"),  # includes the broadcast 255.255.255.255
    )
]
_V6 = [
    (ipaddress.ip_network(net), reason)
    for net, reason in (
        ("fd00:ec2::254/128", "cloud-metadata"),  # AWS IMDS over IPv6
        ("::/128", "unspecified"),
        ("::1/128", "loopback"),
        ("64:ff9b:1::/48", "private"),  # local-use NAT64 (RFC 8215)
        ("fc00::/7", "private"),  # unique local
        ("fec0::/10", "private"),  # site-local, deprecated but still routed by some stacks
        ("fe80::/10", "link-local"),
        ("ff00::/8", "multicast"),
        ("::/8", "reserved"),  # includes the deprecated IPv4-compatible ::a.b.c.d
        ("100::/64", "reserved"),
        ("2001:db8::/32", "reserved"),
    )
]
_NAT64 = ipaddress.ip_network("64:ff9b::/96")
_LOCAL_NAMES = {
    "localhost": "loopback",
    "localhost.localdomain": "loopback",
    "ip6-localhost": "loopback",
    "ip6-loopback": "loopback",
    "metadata": "cloud-metadata",
    "metadata.google.internal": "cloud-metadata",
    "instance-data": "cloud-metadata",
    "instance-data.ec2.internal": "cloud-metadata",
}
_V4_PART = re.compile(r"0x[0-9a-f]+|0[0-7]*|[1-9][0-9]*")


def forbidden(ip: str) -> str | None:
    """Why a crawler must not connect to this address ('loopback', 'private', ...), or None when it is public."""
    address = ipaddress.ip_address(ip)
    if address.version == 6:
        # Forms that carry an IPv4 address a host or gateway will connect to: judge that address.
        embedded = address.ipv4_mapped or address.sixtofour
        if embedded is None and address in _NAT64:
            embedded = ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
        if embedded is not None:
            return forbidden(str(embedded))
    for network, reason in _V4 if address.version == 4 else _V6:
        if address in network:
            return reason
    # A backstop for ranges the table misses (Teredo, ORCHID, future IANA entries).
    if address.is_multicast:
        return "multicast"
    if address.is_reserved or address.is_private or not address.is_global:
        return "reserved"
    return None


def literal_address(host: str) -> str | None:
    """The address a URL host names literally: dotted, bracketed IPv6, or an IPv4 shorthand such as 2130706433
    or 0x7f.1 (inet_aton forms, which browsers and resolvers accept). None for a host name."""
    host = host.strip().lower()
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    try:
        return str(ipaddress.ip_address(host))
    except ValueError:
        pass
    return _inet_aton(host.removesuffix("."))  # the URL standard allows one trailing dot on an IPv4 host


def _inet_aton(host: str) -> str | None:
    """inet_aton's reading of 1 to 4 decimal, octal (0...) or hex (0x...) parts; the last fills the remaining bytes.
    Parsed here because socket.inet_aton also accepts trailing garbage ('127.0.0.1 x')."""
    parts = host.split(".")
    if not 1 <= len(parts) <= 4 or not all(_V4_PART.fullmatch(p) for p in parts):
        return None
    values = [int(p, 16) if p.startswith("0x") else int(p, 8) if p.startswith("0") else int(p) for p in parts]
    *head, last = values
    if any(v > 255 for v in head) or last >= 256 ** (4 - len(head)):
        return None
    number = last
    for i, value in enumerate(head):
        number |= value << (8 * (3 - i))
    return str(ipaddress.IPv4Address(number))


def local_name(host: str) -> str | None:
    """The reason a host name is local without asking DNS (localhost, *.localhost, cloud metadata names), or None."""
    host = host.strip().lower().removesuffix(".")
    if host.endswith(".localhost"):
        return "loopback"  # RFC 6761: every name under .localhost is loopback
    return _LOCAL_NAMES.get(host)


def on_this_machine(url: str) -> bool:
    """Whether a URL's host is a loopback address or name: where a sandbox runs, and nothing else may switch the
    guard off."""
    try:
        host = urlsplit(url).hostname or ""
    except ValueError:
        return False
    address = literal_address(host)
    return (forbidden(address) if address else local_name(host)) == "loopback"
