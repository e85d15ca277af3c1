"""landing.core.web.hostnames: which hosts may be a domain in an artifact, a report or a diff."""

import pytest

from landing.core.web.hostnames import valid_hostname


@pytest.mark.parametrize(
    "host",
    [
        "journals.plos.org",
        "www.nature.com",
        "localhost",
        "1e100.net",  # a digit may start a label
        "123.example.org",  # and make a whole label, except the last
        "xn--bcher-kva.example",  # punycode
        "bücher.example",  # the same name as its U-labels
        "a-b.example",
        "ab--cd.example",  # two hyphens inside, not an IDNA prefix
        "example.org.",  # fully qualified
        "a" * 63 + ".example",
        ".".join(["a" * 61] * 4),  # 247 characters
        "127.0.0.1",
        "::1",
        "2001:db8::1",
        "my_journal.example.org",  # underscores: resolved by browsers, used by real sites
    ],
)
def test_a_valid_hostname_or_ip_literal_is_accepted(host):
    assert valid_hostname(host) is True


@pytest.mark.parametrize(
    "host",
    [
        "=1+2.evil.example",  # a spreadsheet formula
        "+1+1.evil.example",
        "$a__b$.evil.example",  # mathtext
        "a\x1bcred.evil.example",  # ESC
        "a\u202ecred.evil.example",  # right-to-left override
        "a\u200bb.example",  # zero-width space
        "a b.example",
        "a,b.example",
        "-a.example",
        "a-.example",
        "example..org",
        ".example.org",
        "example.org..",
        "a" * 64 + ".example",
        ".".join(["a" * 63] * 4),  # 255 characters
        "xn--zz.example",  # not punycode
        "xn--ls8h-.example",
        "999.1.2.3",
        "1.2.3",
        "0x7f.0.0.1",
        "example.123",
        "fe80::1%eth0",  # a zone id may carry anything
        "[::1]",
        "",
        None,
    ],
)
def test_anything_else_is_refused(host):
    assert valid_hostname(host) is False
