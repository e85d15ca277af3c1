"""The pid, snapshot and analysis documents: namespaced keys, derived ids, each stage a superset of the last."""

import hashlib
from urllib.parse import urlsplit

from landing.core.pids.doi import normalise, prefix
from landing.core.registries.names import KEYS, UNKNOWN, Names, keyed
from landing.core.web.hostnames import valid_hostname

PID_KEYS = (
    "pid/doi",
    "pid/doi-prefix",
    "pid/ra",
    "pid/member-id",
    "pid/global-member-id",
    "pid/timestamp",
    *KEYS["pid"],  # the owner's names from its listing: member (or client) name, provider id and name
)
SNAPSHOT_KEYS = (
    "snapshot/resource-url",
    "snapshot/timestamp",
    "snapshot/urls",
    "snapshot/hops",
    "snapshot/final-url",
    "snapshot/final-url-domain",
    "snapshot/status",
    "snapshot/content-hash",
    "snapshot/content-type",
    "snapshot/content-length",
    "snapshot/driver",
    "snapshot/error",
    "snapshot/error-detail",
)
ANALYSIS_KEYS = (
    "analysis/meta-tags",
    "analysis/meta-tag-correctness",
    "analysis/doi-in-text",
    "analysis/doi-in-hyperlinks",
    "analysis/doi-in-meta-tags",
    "analysis/timestamp",
)


def content_hash(data: bytes) -> str:
    """SHA-256 of a page's content, lower-case hex: its snapshot's content hash, and its blob's name."""
    return hashlib.sha256(data).hexdigest()


def pid(doi: str, ra: str, member_id: str, timestamp: str, names: Names = UNKNOWN) -> dict:
    """A pid document: the DOI in its normalised form, where it is registered and who registered it (with the names
    its owner's listing gave)."""
    bare = normalise(doi)
    return {
        "pid/doi": bare,
        "pid/doi-prefix": prefix(bare),
        "pid/ra": ra,
        "pid/member-id": str(member_id),
        "pid/global-member-id": f"{ra}/{member_id}",
        "pid/timestamp": timestamp,
        **keyed("pid", names),
    }


def pid_id(doc: dict) -> str:
    return doc["pid/doi"]


def snapshot_id(doc: dict) -> str:
    """One snapshot per DOI, driver and UTC day: a re-run the same day replaces it, another day adds history."""
    return f"{doc['pid/doi']} {doc['snapshot/driver']} {doc['snapshot/timestamp'][:10]}"


analysis_id = snapshot_id  # an analysis belongs to exactly one snapshot


def domain(url: str | None) -> str | None:
    """The host a URL names, lower case, without port: the unit artifacts speak of."""
    return (urlsplit(url).hostname or None) if url else None


def hops(redirect_urls: list[str], redirect_reasons: list, last_url: str | None, last_status: int | None) -> list:
    """[{url, status}] for a chain: each redirect's URL with the status that moved on from it, then the last."""
    chain = []
    for url, reason in zip(redirect_urls, redirect_reasons):
        if isinstance(reason, int):
            chain.append({"url": url, "status": reason})
        else:  # a meta refresh or a script's location change: the page answered 200 and moved on
            chain.append(
                {"url": url, "status": 200, "kind": "js-location" if reason == "js-location" else "meta-refresh"}
            )
    if last_url is not None:
        chain.append({"url": last_url, "status": last_status})
    return chain


def resource_url(chain: list, resolver_hosts) -> str | None:
    """The first URL of a chain that is not on the resolver: where the DOI is registered to point."""
    return off_resolver(chain, resolver_hosts)[0]


def off_resolver(chain: list, resolver_hosts) -> tuple[str | None, list]:
    """A chain's resource URL (its first hop off the resolver) and the resolver's hops before it; (None, []) when the
    chain never left the resolver. Where a browser visit takes over from an HTTP chain.

    >>> off_resolver([{"url": "https://doi.org/10.1/x", "status": 302}, {"url": "https://p.example/a"}], {"doi.org"})
    ('https://p.example/a', [{'url': 'https://doi.org/10.1/x', 'status': 302}])
    >>> off_resolver([{"url": "https://doi.org/10.1/x", "status": None}], {"doi.org"})
    (None, [])
    """
    for n, hop in enumerate(chain):
        if domain(hop["url"]) not in resolver_hosts:
            return hop["url"], chain[:n]
    return None, []


def snapshot(pid_doc: dict, **fields) -> dict:
    """A snapshot document: the pid's keys plus every snapshot key (missing ones None). `hops` is the chain
    (`hops()`); its URLs are `snapshot/urls`. A final URL whose host is no hostname gives no domain."""
    doc = dict(pid_doc)
    for key in SNAPSHOT_KEYS:
        doc[key] = fields.get(key.split("/", 1)[1].replace("-", "_"))
    if doc["snapshot/hops"] is not None:
        doc["snapshot/urls"] = [hop["url"] for hop in doc["snapshot/hops"]]
    host = domain(doc["snapshot/final-url"])
    doc["snapshot/final-url-domain"] = host if valid_hostname(host) else None
    return doc


def upgraded(doc: dict) -> dict:
    """A stored document in today's form: a snapshot written when `snapshot/urls` held the hop objects gets its
    URLs there and the hops in `snapshot/hops`; a pid (its snapshots, analyses), a sample or a continuous prefix
    written before owners' names were kept gets them as null. Any other document is returned as it is."""
    for kind, marker in _NAMED:
        if marker in doc and KEYS[kind][0] not in doc:
            doc = {**doc, **keyed(kind, UNKNOWN)}
    urls = doc.get("snapshot/urls")
    if not urls or not isinstance(urls[0], dict):
        return doc
    return {**doc, "snapshot/urls": [hop.get("url") for hop in urls], "snapshot/hops": urls}


# Each kind that keeps names, and a key every document of it has (a pid's also in its snapshots and analyses).
_NAMED = (("pid", "pid/global-member-id"), ("sample", "sample/owner"), ("prefix", "prefix/owner"))


def analysis(snapshot_doc: dict, found: dict | None, timestamp: str) -> dict:
    """An analysis document: the snapshot plus what its page says (all None when there was no page)."""
    doc = dict(snapshot_doc)
    for key in ANALYSIS_KEYS[:-1]:
        doc[key] = (found or {}).get(key)
    doc["analysis/timestamp"] = timestamp
    return doc


def only(doc: dict, *stages: tuple) -> dict:
    """The keys of a document that belong to the given stages (e.g. a snapshot out of an analysis)."""
    keys = [k for stage in stages for k in stage]
    return {k: doc.get(k) for k in keys}
