"""A run: one sampling pass over every owner, recorded in the document store so that it can be resumed.

Three kinds of document make up the run's ledger, each written before the work it records is trusted:
- `run` (id: the run id): when it started, its sampling rule, and its state: `listing` (owners being listed),
  `visiting` (the plan is stored; owners are sampled and their DOIs visited) or `finished`; `run/listing`
  `incomplete` when a listing request failed: the owners listed were planned, and the next crawl lists again and
  extends the plan with those that were missing;
- `sample` (id: `<run>/<order>`): one owner of the plan, its DOI count and sample size, and once sampled the
  DOIs the API gave (`sample/dois`), in one document, so an owner is either sampled whole or not at all;
- `visit` (id: `<run>/<order>/<rank>`): the DOI at that rank of that sample has its final snapshot stored.
Ids sort by plan order, so a resumed run walks its plan and its visits side by side in two streamed scans.
"""

import hashlib
import random

from landing.core.registries.names import UNKNOWN, keyed
from landing.core.sampling.sample_sizes import budget, sample_size

STATES = ("listing", "visiting", "finished")
CONTINUOUS = "continuous"  # run/mode of continuous sampling's run, and its id unless LANDING_RUN names one
ORDER_DIGITS, RANK_DIGITS = 7, 4  # up to 10 million owners, and the largest API sample (DataCite: 1,000)


class RunError(ValueError):
    """The store's run state cannot be used as asked: an unknown or finished run named, or a document broken."""


def run_doc(run_id: str, started: str, sources: list[str], minimum: int, maximum: int, per_prefix: int = 0) -> dict:
    """A new run, listing its owners, with its sampling rule (kept: a resumed run samples by the rule it began with)."""
    return {
        "run/id": run_id,
        "run/started": started,
        "run/state": "listing",
        "run/sources": list(sources),
        "run/sample-min": minimum,
        "run/sample-max": maximum,
        "run/sample-per-prefix": per_prefix,
        "run/owners": None,
        "run/updated": started,
    }


def choose(runs: list[dict], wanted: str, now: str) -> tuple[dict, bool]:
    """(the run to work on, whether it is resumed) given every stored run and LANDING_RUN.

    `auto` resumes the latest unfinished run, or starts one; `new` always starts one; any other value names a
    run, resumed if it is unfinished and started under that name if it does not exist.
    """
    for run in runs:
        if run.get("run/state") not in STATES or not run.get("run/id") or not run.get("run/started"):
            raise RunError(f"the stored run document {run.get('run/id')!r} is not a run this version can read")
    if wanted in ("auto", "new"):
        # A continuous run never finishes: a full run never resumes it (landing.sampler.continuous_planner).
        open_runs = sorted(
            (r for r in runs if r["run/state"] != "finished" and r.get("run/mode") != CONTINUOUS),
            key=lambda r: r["run/started"],
        )
        if wanted == "auto" and open_runs:
            return open_runs[-1], True
        taken = {r["run/id"] for r in runs}
        run_id, n = now, 1
        while run_id in taken:  # two runs started within the same second
            n += 1
            run_id = f"{now}-{n}"
        return {"run/id": run_id}, False
    named = next((r for r in runs if r["run/id"] == wanted), None)
    if named is None:
        return {"run/id": wanted}, False
    if named["run/state"] == "finished":
        raise RunError(f"run {wanted!r} is finished; name another run, or use LANDING_RUN=new")
    return named, True


def shared_namespace(base: str, docs: str, wanted: str) -> str:
    """The Redis namespace of the workers sharing a run: one per document store (LANDING_DOCS), and one per run
    when LANDING_RUN names it. A digest, so that a store URL's credentials never reach Redis.

    >>> shared_namespace("doi_sampler:requests", "sqlite:///data/landing.db", "auto")
    'doi_sampler:requests:2faaacb14ba0'
    >>> shared_namespace("doi_sampler:requests", "sqlite:///data/landing.db", "new")  # the same run as auto's
    'doi_sampler:requests:2faaacb14ba0'
    """
    named = wanted if wanted not in ("auto", "new") else ""
    digest = hashlib.sha256("\n".join((docs, named)).encode()).hexdigest()
    return f"{base}:{digest[:12]}"


def sample_id(run_id: str, order: int) -> str:
    return f"{run_id}/{order:0{ORDER_DIGITS}d}"


def visit_id(run_id: str, order: int, rank: int) -> str:
    return f"{sample_id(run_id, order)}/{rank:0{RANK_DIGITS}d}"


def plan(
    run_id: str,
    owners: list[tuple[str, str, int]],
    minimum: int,
    maximum: int,
    prefixes: dict | None = None,
    per_prefix: int = 0,
    names: dict | None = None,
) -> list[dict]:
    """The sample documents of a run: owners (ra, id, DOI count) sized per agency, in a shuffled order, each with
    the names its listing gave (`names`: (ra, owner) -> landing.core.registries.names.Names).

    Sizes follow landing.core.sampling.sample_sizes per registration agency (a sample is proportional to the agency's
    largest owner), each budget raised to per_prefix DOIs for each of the owner's listed prefixes. The order is
    shuffled, with the run id as seed, so that the bounded frontier holds many owners and many hosts at once
    rather than one agency's listing order; a re-listing gives the same plan.
    """
    largest: dict[str, int] = {}
    for ra, _, total in owners:
        largest[ra] = max(largest.get(ra, 0), total)
    prefixes, names = prefixes or {}, names or {}
    sized = sorted(
        (
            ra,
            str(owner),
            total,
            budget(
                sample_size(total, largest[ra], minimum, maximum),
                len(prefixes.get((ra, str(owner)), ())),
                per_prefix,
                total,
            ),
        )
        for ra, owner, total in owners
    )
    sized = [row for row in sized if row[3] > 0]
    random.Random(run_id).shuffle(sized)
    return [
        {
            "sample/run": run_id,
            "sample/order": order,
            "sample/ra": ra,
            "sample/owner": owner,
            "sample/total": total,
            "sample/size": size,
            "sample/prefixes": prefixes.get((ra, owner), []),
            "sample/per-prefix": per_prefix,
            "sample/dois": None,
            "sample/timestamp": None,
            **keyed("sample", names.get((ra, owner), UNKNOWN)),
        }
        for order, (ra, owner, total, size) in enumerate(sized)
    ]


def extension(samples: list[dict], planned: set[tuple[str, str]], start: int) -> list[dict]:
    """The samples of a new plan whose (ra, owner) the run has not planned yet, in their order, numbered from
    start (the run's owners so far): a re-listing extends the plan, and never moves or sizes again an owner in it."""
    new = [s for s in samples if (s["sample/ra"], s["sample/owner"]) not in planned]
    return [{**s, "sample/order": start + n} for n, s in enumerate(new)]


def sampled(doc: dict, dois: list[str], timestamp: str) -> dict:
    """The sample document once the API answered: its DOIs, normalised and in the API's order, each once."""
    return {**doc, "sample/dois": list(dict.fromkeys(dois)), "sample/timestamp": timestamp}


def unvisited(doc: dict, visited_ranks: set[int]) -> list[tuple[int, str]]:
    """(rank, DOI) of a sampled owner's DOIs that have no visit recorded."""
    return [(rank, doi) for rank, doi in enumerate(doc["sample/dois"] or []) if rank not in visited_ranks]


def visit_doc(run_id: str, order: int, rank: int, doi: str, snapshot_id: str) -> dict:
    return {
        "visit/run": run_id,
        "visit/order": order,
        "visit/rank": rank,
        "pid/doi": doi,
        "visit/snapshot": snapshot_id,
    }
