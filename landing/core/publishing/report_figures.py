"""The figures of the report, from the stored report documents in one pass. Documents in, a JSON-ready dict out.

A full run holds ~130,000 report documents: only totals and bounded top lists are kept while they stream by.
"""

import heapq
from collections.abc import Iterable
from statistics import median

from landing.core.publishing.report_keys import CORRECTNESS

TOP = 20  # rows of each table of the largest
WORST = 50  # rows of each table of the worst (the full tables are written beside the index)
WORST_MIN_DOIS = 5  # ranked among the worst only with this many DOIs: one bad DOI says little
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


def share(part: int, whole: int) -> float | None:
    """part / whole rounded to 4 places, None when whole is 0.

    >>> share(9, 10), share(0, 0)
    (0.9, None)
    """
    return round(part / whole, 4) if whole else None


def worst_key(row: dict) -> tuple:
    """How bad a row is, largest worst: the lower its ok share of all its DOIs (a failed visit counts against it),
    the worse; then the more DOIs.

    >>> worst_key({"dois": 10, "correctness": {"ok": 0}}) > worst_key({"dois": 10, "correctness": {"ok": 9}})
    True
    """
    return -(row["correctness"].get("ok", 0) / row["dois"]) if row["dois"] else 0.0, row["dois"]


def medians(rows: Iterable[dict]) -> dict[str, dict]:
    """Per agency (the key's part before "/"), the median member: its DOIs, ok % of DOIs and ok % of read (among the
    members with a page read), and how many members.

    >>> medians([{"key": "crossref/1", "dois": 10, "ok-of-dois": 0.9, "ok-share": 1.0},
    ...          {"key": "crossref/2", "dois": 2, "ok-of-dois": 0.0, "ok-share": None},
    ...          {"key": "crossref/3", "dois": 4, "ok-of-dois": 0.5, "ok-share": 0.5}])
    {'crossref': {'members': 3, 'dois': 4, 'ok-of-dois': 0.5, 'ok-share': 0.75}}
    """
    by: dict[str, list[dict]] = {}
    for row in rows:
        by.setdefault(row["key"].split("/", 1)[0], []).append(row)
    found = {}
    for agency, members in sorted(by.items()):
        read = [m["ok-share"] for m in members if m["ok-share"] is not None]
        found[agency] = {
            "members": len(members),
            "dois": median(m["dois"] for m in members),
            "ok-of-dois": round(median(m["ok-of-dois"] or 0.0 for m in members), 4),
            "ok-share": round(median(read), 4) if read else None,
        }
    return found


def _row(doc: dict) -> dict:
    correctness = {name: doc.get("report/correctness", {}).get(name, 0) for name in CORRECTNESS}
    errors = dict(doc.get("report/errors") or {})
    read = sum(correctness.values())
    row = {
        "key": doc["report/key"],
        "dois": doc.get("report/dois", 0),
        "read": read,
        "correctness": correctness,
        "errors": errors,
        "failed": sum(errors.values()),
        "ok-share": share(correctness["ok"], read),
        "ok-of-dois": share(correctness["ok"], doc.get("report/dois", 0)),
    }
    kind = doc.get("report/kind")
    if kind == "member":
        row["name"] = doc.get("report/name")
    elif kind == "prefix":
        row["member"], row["name"] = doc.get("report/member"), doc.get("report/member-name")
    return row


def figures(reports: Iterable[dict]) -> dict:
    """Totals, the largest and the worst rows per member, prefix and domain, of a stream of report documents."""
    totals = {
        "dois": 0,
        "read": 0,
        "failed": 0,
        "prefixes": 0,
        "domains": 0,
        "members": 0,
        "correctness": dict.fromkeys(CORRECTNESS, 0),
        "errors": {},
        "prefixes-without-good-domain": 0,
    }
    top = {kind: _Top() for kind in _PLURAL}
    worst = {kind: _Top(WORST) for kind in _PLURAL}
    failing, no_good, members = _Top(), [], []
    for doc in reports:
        kind = doc.get("report/kind")
        if kind not in top:
            continue
        row = _row(doc)
        totals[_PLURAL[kind]] += 1
        top[kind].add(row["dois"], row)
        if row["dois"] >= WORST_MIN_DOIS:  # a domain where nothing could be read is ranked too: its share is 0
            worst[kind].add(worst_key(row), row)
        if kind == "prefix":
            totals["dois"] += row["dois"]
            totals["read"] += row["read"]
            totals["failed"] += row["failed"]
            for name, n in row["correctness"].items():
                totals["correctness"][name] += n
            for name, n in row["errors"].items():
                totals["errors"][name] = totals["errors"].get(name, 0) + n
            if not doc.get("report/good-domains"):
                totals["prefixes-without-good-domain"] += 1
                if len(no_good) < NO_GOOD_LISTED:
                    no_good.append({**row, "bad-domains": doc.get("report/bad-domains", [])[:5]})
        if kind == "domain" and row["failed"]:
            failing.add(row["failed"], row)
        if kind == "member":  # a few numbers a member: a full run's 20,000 fit
            members.append({key: row[key] for key in ("key", "dois", "ok-of-dois", "ok-share")})
    totals["errors"] = dict(sorted(totals["errors"].items(), key=lambda item: (-item[1], item[0])))
    return {
        "totals": totals,
        "members": top["member"].items(),
        "prefixes": top["prefix"].items(),
        "domains": top["domain"].items(),
        "failing-domains": failing.items(),
        "worst-members": worst["member"].items(),
        "worst-prefixes": worst["prefix"].items(),
        "worst-domains": worst["domain"].items(),
        "prefixes-without-good-domain": sorted(no_good, key=lambda row: row["key"]),
        "member-medians": medians(members),
    }


def run_details(runs: Iterable[dict]) -> dict | None:
    """What the report says of the run that made the store's documents: the latest run document's id, start, state,
    mode, sources, owners and planned DOIs (the sample size); None when the store holds no run."""
    latest = max(runs, key=lambda run: (run.get("run/started") or "", run.get("run/id") or ""), default=None)
    if latest is None:
        return None
    return {
        "id": latest.get("run/id"),
        "started": latest.get("run/started"),
        "updated": latest.get("run/updated"),
        "state": latest.get("run/state"),
        "mode": latest.get("run/mode") or "full",
        "sources": list(latest.get("run/sources") or []),
        "owners": latest.get("run/owners"),
        "dois-planned": latest.get("run/dois-planned"),
    }


def trend_point(version: str, found: dict) -> dict:
    """One version's point of the correctness trend: its name, DOIs, correctness totals and failed visits (a version
    written before its totals counted them: the sum of its failure classes).

    >>> trend_point("v1", {"totals": {"dois": 5, "correctness": {"ok": 3}, "errors": {"robots": 1, "dns": 1}}})
    {'version': 'v1', 'dois': 5, 'correctness': {'ok': 3}, 'failed': 2}
    """
    totals = found["totals"]
    failed = totals.get("failed", sum((totals.get("errors") or {}).values()))
    return {"version": version, "dois": totals["dois"], "correctness": totals["correctness"], "failed": failed}
