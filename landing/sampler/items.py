"""Items the sampler yields: a Visit, which AnalysisPipeline reads into an AnalysisItem, and plain dicts with
namespaced keys (itemadapter treats them as dicts).

The kind of an item is its class; a snapshot's body rides along as an attribute, so feed exports of the
items never carry page bytes.
"""

from dataclasses import dataclass

from landing.core.pages.page import Page


@dataclass(eq=False)
class Visit:
    """A DOI's visit as the visitor ended it: its snapshot document (pid/* and snapshot/* keys) and the page it
    fetched (None when no body came back, or it may not be kept). On the DOI's last visit of a run, `record` is the
    (id, document) of its visit record (landing.core.sampling.runs), and `lease` the shared frontier's lease on the DOI."""

    snapshot: dict
    page: Page | None
    record: tuple[str, dict] | None = None
    lease: tuple[str, str] | None = None

    @property
    def pid(self) -> dict:
        return {key: self.snapshot[key] for key in self.snapshot if key.startswith("pid/")}

    @property
    def hops(self) -> list:
        return self.snapshot["snapshot/hops"]

    @property
    def body(self) -> bytes | None:
        return self.page.body if self.page is not None else None


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
        # visit: (id, document) of the run's visit record, on a DOI's final snapshot only (landing.core.sampling.runs);
        # lease: the shared frontier's lease on the DOI, acked once that record is written (landing.sampler.frontier_redis)
        self.body = body
        self.visit = visit
        self.lease = lease


class LedgerItem(dict):
    """A document of the run's ledger (landing.core.sampling.runs: run, sample), stored in order with the crawl's others."""

    def __init__(self, kind: str, doc_id: str, doc: dict):
        super().__init__(doc)
        self.kind = kind
        self.doc_id = doc_id
