"""Continuous sampling's records in the document store: the known prefixes (kind `prefix`), the schedule (the
`continuous` state document) and the rounds it appends to its one run's plan (rules in landing.core.continuous.schedule).

Every method blocks on the store: the crawl calls them on the store's own thread (pipelines.Docs.call), as it does
the run's ledger (landing.sampler.ledger), so reads see every document the crawl has put. A round's samples, the run
and the state that names the round are written in one flush, so a crawl killed at any moment resumes the round it
was in: its samples are in the plan, its visits recorded as they are stored.
"""

from landing.core.continuous import registry_deltas, rotation, schedule
from landing.core.continuous.freshness import REGISTRY, Prefix, moment, prefix_id, prefix_of
from landing.core.registries.names import read as names_in
from landing.core.sampling import runs
from landing.core.sampling.runs import RunError
from landing.sampler.ledger import Ledger


class ContinuousLedger:
    def __init__(self, ledger: Ledger):
        self.ledger = ledger
        self.docs = ledger.docs
        # Every known prefix by id, read once and then kept as this ledger writes them: a slice plans over all of
        # them, and reading every prefix document back each slice was slow (docs/continuous.md "What a slice costs").
        self.known: dict[str, Prefix] | None = None
        # Distinct DOIs drawn and sites seen, summed over the known prefixes as they are read and then recorded.
        self.drawn, self.sites = 0, 0

    def open(self, now: str) -> tuple[dict, dict, bool]:
        """(the continuous run, its state, resumed?): the run is opened as a full run's is, marked continuous."""
        run, resumed = self.ledger.open(now)
        if resumed and run.get("run/mode") != runs.CONTINUOUS:
            raise RunError(
                f"run {run['run/id']!r} is a full run: continuous mode keeps its own run (LANDING_RUN=auto names "
                f"it {runs.CONTINUOUS!r})"
            )
        if not resumed:
            run = {**run, "run/mode": runs.CONTINUOUS, "run/state": "visiting", "run/owners": 0, "run/dois-planned": 0}
            self.docs.put("run", run["run/id"], run)
        state = self.docs.get(*schedule.STATE)
        if state is None or state.get("continuous/run") != run["run/id"]:
            state = schedule.new_state(run["run/id"], now)
        self.save(state)
        return run, state, resumed

    def save(self, state: dict) -> dict:
        self.docs.put(*schedule.STATE, state)
        self.docs.flush()
        return state

    def state(self) -> dict | None:
        return self.docs.get(*schedule.STATE)

    def prefixes(self) -> list[Prefix]:
        """Every known prefix: the `prefix` documents read on the first call, then as this ledger wrote them (only
        the run's planner writes them)."""
        if self.known is None:
            self.known, self.drawn, self.sites = {}, 0, 0
            for doc_id, doc in self.docs.items("prefix"):
                self.known[doc_id] = prefix_of(doc)
                drawn, sites = rotation.seen(doc)
                self.drawn, self.sites = self.drawn + drawn, self.sites + sites
        return list(self.known.values())

    def seen(self) -> tuple[int, int]:
        """(distinct DOIs drawn, distinct sites seen) summed over the known prefixes (read by `prefixes` first)."""
        return self.drawn, self.sites

    def _put_prefix(self, doc_id: str, doc: dict) -> None:
        self.docs.put("prefix", doc_id, doc)
        if self.known is not None:
            self.known[doc_id] = prefix_of(doc)

    def relist(
        self, listing: dict, state: dict, now: str, complete: bool, names: dict | None = None
    ) -> tuple[dict, dict]:
        """Store what a listing ({(ra, prefix): {owner: DOIs}}, its owners' `names`) changes in the known prefixes:
        (state, counts).
        The state's `listed` moves on only when every listing request was answered: else the next slice lists
        again."""
        known = {prefix_id(d["prefix/ra"], d["prefix/prefix"]): d for d in self.docs.scan("prefix")}
        changed, counts = schedule.relisted(known, listing, now, names)
        for doc in changed:
            self._put_prefix(prefix_id(doc["prefix/ra"], doc["prefix/prefix"]), doc)
        if complete:
            state = {**state, "continuous/listed": now, "continuous/updated": now}
        return self.save(state), counts

    def begin(self, run: dict, state: dict, plan, planned: str) -> tuple[dict, dict, int]:
        """Append the plan's picks to the run's plan as samples, and add them to the state's open rounds: (run,
        state, how many samples are asked of the API). A pick of a prefix with no DOI has nothing to visit: it
        counts as sampled now."""
        start, samples = run["run/owners"] or 0, []
        for pick in plan.picks:
            doc_id = prefix_id(pick.prefix.ra, pick.prefix.prefix)
            doc = self.docs.get("prefix", doc_id)
            if doc is None:
                continue  # listed again under another id since it was read: the next slice plans it
            if pick.reason == REGISTRY:  # exactly the DOIs the registries moved, cleared from the prefix
                dois = list(doc.get("prefix/registry-dois") or ())
                self._put_prefix(doc_id, registry_deltas.picked(doc))
                if not dois:
                    continue
                sample = registry_deltas.sample(
                    run["run/id"], start + len(samples), pick, dois, planned, names_in("prefix", doc)
                )
                samples.append(sample)
                self.docs.put("sample", runs.sample_id(run["run/id"], sample["sample/order"]), sample)
                continue
            if pick.dois <= 0:
                self._put_prefix(doc_id, {**doc, "prefix/sampled": planned})
                continue
            sample = schedule.pick_sample(
                run["run/id"],
                start + len(samples),
                pick,
                rotation.revisited(doc.get("prefix/panel") or (), pick.dois),
                planned,
                names_in("prefix", doc),
                doc.get("prefix/drawn-keys") or "",
            )
            samples.append(sample)
            self.docs.put("sample", runs.sample_id(run["run/id"], sample["sample/order"]), sample)
        run = {
            **run,
            "run/owners": start + len(samples),
            "run/dois-planned": (run.get("run/dois-planned") or 0) + sum(s["sample/size"] for s in samples),
            "run/updated": planned,
        }
        self.docs.put("run", run["run/id"], run)
        opened = {
            "from": start,
            "to": start + len(samples),
            "planned": planned,
            "prefixes": [prefix_id(s["sample/ra"], s["sample/prefix"]) for s in samples],
        }
        state = {
            **state,
            "continuous/open": [*state.get("continuous/open", []), opened]
            if samples
            else state.get("continuous/open", []),
            "continuous/updated": planned,
        }
        return run, self.save(state), sum(s["sample/dois"] is None for s in samples)

    def tallies(self, ra: str, prefixes) -> dict[str, dict | None]:
        """Each of `prefixes` (of registry `ra`) with its tally of resource domains: {} when it has none yet, None
        when it is not a known prefix."""
        found = {}
        for name in prefixes:
            doc = self.docs.get("prefix", prefix_id(ra, name))
            found[name] = None if doc is None else registry_deltas.tally_of(doc)
        return found

    def observe(self, ra: str, look, limit: int) -> dict:
        """What a look (landing.core.continuous.registry_deltas.Look) at registry `ra` saw, stored on its prefixes:
        their tallies grown, changed prefixes signalled with their DOIs kept, at most `limit` a prefix. Figures
        {changes: DOIs kept, signalled: prefixes}."""
        figures = {"changes": 0, "signalled": 0}
        for name, seen in sorted(look.seen.items()):
            doc_id = prefix_id(ra, name)
            doc = self.docs.get("prefix", doc_id)
            if doc is None:
                continue
            doc, kept = registry_deltas.observed(doc, seen, look.kept.get(name, {}), limit)
            self._put_prefix(doc_id, doc)
            figures["changes"] += kept
            figures["signalled"] += kept > 0
        self.docs.flush()
        return figures

    def looked(self, state: dict, ends: dict, figures: dict, now: str) -> dict:
        """The state once the registries were looked at: each registry's window end (`ends`, {registry: stamp}),
        and what the look found (figures {dois, changes, signalled})."""
        return self.save(
            {
                **state,
                "continuous/delta": {**(state.get("continuous/delta") or {}), **ends},
                "continuous/delta-looked": now,
                **{f"continuous/delta-{name}": figures.get(name, 0) for name in ("dois", "changes", "signalled")},
                "continuous/updated": now,
            }
        )

    def spent(self, state: dict, now: str, requests: int) -> dict:
        """`requests` sent since the last count (the visits that ran while the planner waited) counted in the day at
        `now`, and as visits' requests."""
        if not requests:
            return state
        state = schedule.counted(state, moment(now), requests)
        visits = state.get("continuous/requests", 0) + requests
        return self.save({**state, "continuous/requests": visits, "continuous/updated": now})

    def counted(self, state: dict, plan, planned: str, requests: int, visits: int) -> dict:
        """The slice's plan done: the requests made since the last (`visits` of them by DOIs' visits, the others
        listings and sample queries) counted in the day, and the plan's overdraft carried. Its picks' visits are sent
        over the next slices, so their cost is not compared with this slice's count: the estimate is made good by the
        crawl's own requests per DOI (landing.core.continuous.schedule.per_doi), and the day's count caps each plan."""
        state = schedule.counted(state, moment(planned), requests)
        return self.save(
            {
                **state,
                "continuous/planned": planned,
                "continuous/carry": plan.carry,
                "continuous/requests": state.get("continuous/requests", 0) + visits,
                "continuous/updated": planned,
            }
        )

    def close(self, run: dict, state: dict, now: str, idle: bool, overdue: str = "") -> tuple[dict, dict]:
        """Close the open rounds whose samples are answered and visited, those planned before `overdue` as they
        are (counted `overdue` unless visited), or all of them when nothing is in flight (`idle`: failed samples and
        lost visits stay so): each sampled prefix's document updated from its visits (landing.core.continuous.schedule.sampled).
        (state, figures {rounds, overdue, sampled, signalled, failed, dois}). A prefix whose sample failed keeps its
        record: a later slice picks it again."""
        figures = {"rounds": 0, "overdue": 0, "sampled": 0, "signalled": 0, "failed": 0, "dois": 0}
        still = []
        for round_ in state.get("continuous/open", []):
            samples = [
                self.docs.get("sample", runs.sample_id(run["run/id"], o)) for o in range(round_["from"], round_["to"])
            ]
            # A round visited in time may be looked at only after `overdue` (the slice was exporting): not overdue.
            visited = idle or self._visited(run, round_, samples)
            if not visited and round_["planned"] >= overdue:
                still.append(round_)
                continue
            figures["rounds"] += 1
            figures["overdue"] += not visited
            for sample in samples:
                self._record(sample, figures)
        if not figures["rounds"]:
            return state, figures
        state = {
            **state,
            "continuous/open": still,
            "continuous/rounds": state.get("continuous/rounds", 0) + figures["rounds"],
            "continuous/changes": state.get("continuous/changes", 0) + figures["signalled"],
            "continuous/sampled-since": state.get("continuous/sampled-since", 0) + figures["sampled"],
            "continuous/dois": state.get("continuous/dois", 0) + figures["dois"],
            "continuous/updated": now,
        }
        return self.save(state), figures

    def _visited(self, run: dict, round_: dict, samples: list) -> bool:
        if any(s is None or s.get("sample/dois") is None for s in samples):
            return False
        missing = self.ledger.unvisited(run, round_["from"] - 1)
        return not any(sample["sample/order"] < round_["to"] for sample, _, _ in missing)

    def _record(self, sample: dict | None, figures: dict) -> None:
        if sample is None or sample.get("sample/dois") is None:
            figures["failed"] += 1
            return
        doc_id = prefix_id(sample["sample/ra"], sample["sample/prefix"])
        doc = self.docs.get("prefix", doc_id)
        if doc is None:
            return
        before = rotation.seen(doc)
        analyses = list(self.docs.scan("analysis", prefix=sample["sample/prefix"] + "/"))
        if sample.get("sample/reason") == REGISTRY:  # a few DOIs the registries moved: no refresh of the prefix
            doc = registry_deltas.visited(doc, sample, analyses)
        else:
            doc = registry_deltas.resourced(schedule.sampled(doc, sample, analyses), sample, analyses)
            doc = registry_deltas.first_sampled(doc, sample, analyses)
        self._put_prefix(doc_id, doc)
        if self.known is not None:
            after = rotation.seen(doc)
            self.drawn, self.sites = self.drawn + after[0] - before[0], self.sites + after[1] - before[1]
        figures["sampled"] += 1
        figures["signalled"] += bool(doc["prefix/signals"])
        figures["dois"] += len(sample["sample/dois"])
