"""The network questions the matching cascade asks (landing.core.matching.cascade), each answered as (value, requests made):
by the matcher spider's Scrapy requests, the service's own client, or a table in the tests."""

from dataclasses import dataclass


@dataclass(frozen=True)
class Exists:
    """Does the Handle API know this DOI? bool."""

    doi: str


@dataclass(frozen=True)
class Alias:
    """Which DOI does this shortDOI (`10/<code>`) stand for? The DOI, or None."""

    short: str


@dataclass(frozen=True)
class Pii:
    """Which DOIs did Crossref record with one of these written forms of a PII? A sorted list."""

    variants: tuple[str, ...]


@dataclass(frozen=True)
class Resolve:
    """Where does resolving this DOI lead? A Fetched without body or headers."""

    doi: str


@dataclass(frozen=True)
class Titles:
    """The DOI's registered (titles, subtitles), or None when no registry with titles holds it."""

    doi: str


@dataclass(frozen=True)
class Fetch:
    """The page at this URL, redirects followed: a Fetched (its requests: the hops)."""

    url: str


Question = Exists | Alias | Pii | Resolve | Titles | Fetch
