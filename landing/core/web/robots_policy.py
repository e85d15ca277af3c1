"""Whether robots.txt governs a request: one policy for Scrapy's requests and for what Chromium fetches by itself."""

from typing import NamedTuple
from urllib.parse import urlsplit


class RobotsPolicy(NamedTuple):
    """API requests never ask robots.txt (their terms govern them); the resolver's hops ask it when obey_resolver
    (LANDING_RESOLVER_ROBOTS=obey); every other page, the publishers', asks it when obey (ROBOTSTXT_OBEY)."""

    obey: bool
    obey_resolver: bool = False
    resolver_hosts: frozenset = frozenset()

    def governs(self, url: str, api: bool = False) -> bool:
        """Whether url may be fetched only once its host's robots.txt allows it."""
        parts = urlsplit(url)
        if api or not self.obey or parts.scheme not in ("http", "https"):
            return False
        return self.obey_resolver or parts.hostname not in self.resolver_hosts
