"""Items the sampler yields: plain dicts with namespaced keys (itemadapter treats them as dicts).

The kind of an item is its class; a snapshot's body rides along as an attribute, so feed exports of the
items never carry page bytes.
"""


class PidItem(dict):
    """A sampled DOI (pid/* keys), stored as soon as it is sampled so a failed visit never loses it."""


class AnalysisItem(dict):
    """A visit to a DOI and what its page says (pid/*, snapshot/* and analysis/* keys); `body` holds the bytes
    fetched, if any."""

    def __init__(
        self,
        *args,
        body: bytes | None = None,
        visit: tuple[str, dict] | None = None,
        lease: tuple[str, str] | None = None,
        **kwargs,
    ):
        super().__init__(*args, **kwargs)
        # visit: (id, document) of the run's visit record, on a DOI's final snapshot only (landing.core.runs);
        # lease: the shared frontier's lease on the DOI, acked once that record is written (landing.sampler.frontier_redis)
        self.body, self.visit, self.lease = body, visit, lease


class LedgerItem(dict):
    """A document of the run's ledger (landing.core.runs: run, sample), stored in order with the crawl's others."""

    def __init__(self, kind: str, doc_id: str, doc: dict):
        super().__init__(doc)
        self.kind, self.doc_id = kind, doc_id
