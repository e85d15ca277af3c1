"""The run's ledger in the document store (rules in landing.core.sampling.runs): open or resume a run, store its plan, walk it.

Every method blocks on the store: the crawl calls them on the document store's own thread (pipelines.Stores),
the one that also writes the crawl's documents, so reads see every document the crawl has put.
"""

from dataclasses import dataclass
from itertools import islice
from typing import Any

from landing.core.sampling import runs

CHUNK = 500  # sample documents read at a time while walking a plan (each holds up to 100 DOIs)


@dataclass(frozen=True)
class Ledger:
    """The run `wanted` names (as LANDING_RUN does) in the document store `docs`, and the sampling rule a new run
    begins with: its sources, its sample sizes, its floor per listed prefix."""

    docs: Any
    wanted: str
    sources: list[str]
    minimum: int
    maximum: int
    per_prefix: int = 0

    def open(self, now: str) -> tuple[dict, bool]:
        """(the run document, resumed?): LANDING_RUN's run, or a new one, stored before any work starts."""
        run, resumed = runs.choose(list(self.docs.scan("run")), self.wanted, now)
        if resumed:
            return run, True
        run = runs.run_doc(run["run/id"], now, self.sources, self.minimum, self.maximum, self.per_prefix)
        self.docs.put("run", run["run/id"], run)
        self.docs.flush()
        return run, False

    def store_plan(
        self,
        run: dict,
        owners: list[tuple[str, str, int]],
        complete: bool,
        now: str,
        prefixes: dict | None = None,
        names: dict | None = None,
    ) -> dict:
        """Store the plan's sample documents (a run planned already: the owners it lacks, after its own), then the
        run as `visiting`, its listing complete or not; returns the run document. `prefixes` and `names`: each
        owner's, from its listing (landing.core.sampling.runs.plan)."""
        run_id, start = run["run/id"], run["run/owners"] or 0
        # A run begun before the per-prefix rule has none: its plan keeps the sizes it was begun with.
        samples = runs.plan(
            run_id,
            owners,
            run["run/sample-min"],
            run["run/sample-max"],
            prefixes,
            run.get("run/sample-per-prefix", 0),
            names,
        )
        if start:
            planned = {
                (s["sample/ra"], s["sample/owner"])
                for s in self.docs.scan("sample", prefix=f"{run_id}/")
                if s["sample/order"] < start
            }
            samples = runs.extension(samples, planned, start)
        for sample in samples:
            self.docs.put("sample", runs.sample_id(run_id, sample["sample/order"]), sample)
        run = {
            **run,
            "run/state": "visiting",
            "run/owners": start + len(samples),
            "run/updated": now,
            "run/listing": "complete" if complete else "incomplete",
            "run/dois-planned": (run.get("run/dois-planned") or 0) + sum(s["sample/size"] for s in samples),
        }
        # After its samples, in the same ordered buffer: a run is `visiting` only once its whole plan is stored.
        self.docs.put("run", run["run/id"], run)
        self.docs.flush()
        return run

    def chunk(self, run: dict, after: int) -> list[tuple[dict, set[int]]]:
        """The next plan entries past order `after` (-1: from the start), each with the ranks already visited."""
        run_id, prefix = run["run/id"], f"{run['run/id']}/"
        start = runs.sample_id(run_id, after) if after >= 0 else ""
        samples = [
            s
            for s in islice(self.docs.scan("sample", prefix=prefix, after=start), CHUNK)
            if s["sample/order"] < run["run/owners"]
        ]  # a longer plan of an earlier listing, left over
        visited: dict[int, set[int]] = {}
        if any(s["sample/dois"] is not None for s in samples):
            first, last = samples[0]["sample/order"], samples[-1]["sample/order"]
            # From just before the chunk's first owner: the visits of owners walked already are not read again.
            for visit in self.docs.scan("visit", prefix=prefix, after=runs.sample_id(run_id, first)):
                if visit["visit/order"] > last:
                    break
                visited.setdefault(visit["visit/order"], set()).add(visit["visit/rank"])
        return [(s, visited.get(s["sample/order"], set())) for s in samples]

    def unvisited(self, run: dict, after: int = -1) -> list[tuple[dict, int, str]]:
        """(sample, rank, DOI) of every sampled DOI of the run past order `after` that has no visit recorded, in plan
        order."""
        found = []
        while chunk := self.chunk(run, after):
            for sample, visited in chunk:
                after = sample["sample/order"]
                found.extend((sample, rank, doi) for rank, doi in runs.unvisited(sample, visited))
        return found

    def store(self, kind: str, doc_id: str, doc: dict) -> None:
        """Write one document of the run now (a sample, before workers sharing the frontier visit its DOIs)."""
        self.docs.put(kind, doc_id, doc)
        self.docs.flush()

    def finish(self, run: dict, now: str) -> dict:
        run = {**run, "run/state": "finished", "run/updated": now}
        self.docs.put("run", run["run/id"], run)
        self.docs.flush()
        return run
