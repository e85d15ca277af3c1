"""Items the sampler yields: plain dicts with namespaced keys (itemadapter treats them as dicts).

The kind of an item is its class; a snapshot's body rides along as an attribute, so feed exports of the
items never carry page bytes.
"""


class PidItem(dict):
    """A sampled DOI (pid/* keys), stored as soon as it is sampled so a failed visit never loses it."""


class SnapshotItem(dict):
    """A visit to a DOI (pid/* and snapshot/* keys); `body` holds the bytes fetched, if any."""

    def __init__(self, *args, body: bytes | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        self.body = body


class AnalysisItem(SnapshotItem):
    """A snapshot with what its page says (analysis/* keys added)."""
