"""Domains the matcher can never match a DOI on, whatever DOIs led there: their URLs name videos, posts, files or
archived copies of anything, so a domain there vouches for no prefix. Strings in, values out.

The shipped list (VERSION, DOMAINS) is the default; LANDING_EXCLUDED_DOMAINS names a file that replaces it. A
domain excludes its subdomains too (youtube.com: m.youtube.com). Changed by editing DOMAINS and VERSION together.
"""

VERSION = "2026-11-24"
DOMAINS = (
    # Video and audio platforms: a conference talk or a lab's video, never a work's landing page.
    "youtube.com",
    "youtu.be",
    "vimeo.com",
    "dailymotion.com",
    "soundcloud.com",
    # Social media: a post that cites a DOI is about the work, not its landing page.
    "twitter.com",
    "x.com",
    "facebook.com",
    "linkedin.com",
    "instagram.com",
    "reddit.com",
    # File hosting and shared documents: any file of anyone, under opaque ids.
    "drive.google.com",
    "docs.google.com",
    "dropbox.com",
    # Web archives: a copy of any page of any site.
    "web.archive.org",
    "archive.today",
    "archive.ph",
)


class ExclusionsError(ValueError):
    """An exclusion list that cannot be read; the message names the line."""


def parse_exclusions(text: str) -> frozenset[str]:
    """The domains of an exclusion list: one a line, lower-cased; blank lines and `#` comments skipped."""
    domains = set()
    for number, line in enumerate(text.splitlines(), 1):
        domain = line.split("#", 1)[0].strip().lower().rstrip(".")
        if not domain:
            continue
        if "/" in domain or ":" in domain or " " in domain or "." not in domain:
            raise ExclusionsError(
                f"line {number}: {line.strip()!r} is not a domain (one host name a line, such as youtube.com)"
            )
        domains.add(domain)
    return frozenset(domains)


def excluded(domain: str | None, exclusions: frozenset[str]) -> bool:
    """Whether domain is on the list, or below a domain that is."""
    if not domain:
        return False
    domain = domain.lower().rstrip(".")
    parts = domain.split(".")
    return any(".".join(parts[n:]) in exclusions for n in range(len(parts) - 1))
