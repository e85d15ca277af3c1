"""The report documents' keys (per prefix, domain and member), which the stores map, and their derived ids."""

from landing.core.registries.names import KEYS

CORRECTNESS = ("ok", "incorrect", "conflict", "missing")  # a report's correctness counts, in this order first
# Every key a report document has (landing.core.publishing.aggregation), spelled here once: the stores map them.
REPORT_KEYS = (
    "report/kind",
    "report/key",
    "report/ra",
    "report/member-id",
    "report/dois",
    "report/errors",
    "report/correctness",
    "report/good-domains",
    "report/bad-domains",
    "report/good-prefixes",
    "report/bad-prefixes",
    *KEYS["report"],  # a member report's names (landing.core.registries.names)
    "report/member",  # a prefix report's member with most DOIs under it, and its name
    "report/member-name",
)


def report_id(doc: dict) -> str:
    """Derived id of a report document, so re-running a report overwrites rather than duplicates.

    >>> report_id({"report/kind": "prefix", "report/key": "10.1371"})
    'prefix:10.1371'
    """
    return f"{doc['report/kind']}:{doc['report/key']}"
