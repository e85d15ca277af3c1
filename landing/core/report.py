"""The figures of the HTML report, from the stored report documents in one pass. Documents in, a JSON-ready dict out.

A full run holds ~130,000 report documents: only totals and bounded top lists are kept while they stream by.
"""

import heapq
from collections.abc import Iterable

from landing.core.artifacts import CORRECTNESS

TOP = 20  # rows of each ranked table and chart
WORST_MIN_DOIS = 5  # a domain is ranked among the worst only with this many pages read: one bad page says little
NO_GOOD_LISTED = 100  # prefixes with no good domain named in the report (all are counted)
_PLURAL = {"member": "members", "prefix": "prefixes", "domain": "domains"}


class _Top:
    """The n largest items by key, kept in a bounded heap; ties keep the first seen."""

    def __init__(self, n: int = TOP):
        self.n, self.heap, self.count = n, [], 0

    def add(self, key, item) -> None:
        self.count += 1
        entry = (key, -self.count, item)
        if len(self.heap) < self.n:
            heapq.heappush(self.heap, entry)
        elif entry > self.heap[0]:
            heapq.heapreplace(self.heap, entry)

    def items(self) -> list:
        return [item for _, _, item in sorted(self.heap, reverse=True)]


def _row(doc: dict) -> dict:
    correctness = {name: doc.get("report/correctness", {}).get(name, 0) for name in CORRECTNESS}
    errors = dict(doc.get("report/errors") or {})
    return {
        "key": doc["report/key"],
        "dois": doc.get("report/dois", 0),
        "correctness": correctness,
        "errors": errors,
        "failed": sum(errors.values()),
    }


def figures(reports: Iterable[dict]) -> dict:
    """Totals, and the top rows per member, prefix and domain, of a stream of report documents."""
    totals = {
        "dois": 0,
        "prefixes": 0,
        "domains": 0,
        "members": 0,
        "correctness": dict.fromkeys(CORRECTNESS, 0),
        "errors": {},
        "prefixes-without-good-domain": 0,
    }
    top = {kind: _Top() for kind in ("member", "prefix", "domain")}
    failing, worst, no_good = _Top(), _Top(), []
    for doc in reports:
        kind = doc.get("report/kind")
        if kind not in top:
            continue
        row = _row(doc)
        totals[_PLURAL[kind]] += 1
        top[kind].add(row["dois"], row)
        if kind == "prefix":
            totals["dois"] += row["dois"]
            for name, n in row["correctness"].items():
                totals["correctness"][name] += n
            for name, n in row["errors"].items():
                totals["errors"][name] = totals["errors"].get(name, 0) + n
            if not doc.get("report/good-domains"):
                totals["prefixes-without-good-domain"] += 1
                if len(no_good) < NO_GOOD_LISTED:
                    no_good.append({**row, "bad-domains": doc.get("report/bad-domains", [])[:5]})
        if kind == "domain":
            if row["failed"]:
                failing.add(row["failed"], row)
            read = sum(row["correctness"].values())
            if read >= WORST_MIN_DOIS:  # pages read: a domain that only failed is among the failing ones
                share = row["correctness"]["ok"] / read
                worst.add((-share, row["dois"]), {**row, "ok-share": round(share, 4)})
    totals["errors"] = dict(sorted(totals["errors"].items(), key=lambda item: (-item[1], item[0])))
    return {
        "totals": totals,
        "members": top["member"].items(),
        "prefixes": top["prefix"].items(),
        "domains": top["domain"].items(),
        "failing-domains": failing.items(),
        "worst-domains": worst.items(),
        "prefixes-without-good-domain": sorted(no_good, key=lambda row: row["key"]),
    }


def trend_point(version: str, found: dict) -> dict:
    """One version's point of the correctness trend: its name, DOIs and correctness totals."""
    return {"version": version, "dois": found["totals"]["dois"], "correctness": found["totals"]["correctness"]}
