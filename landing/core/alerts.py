"""Publisher alerts: what a member should fix, and what got worse since the previous version. A member's object of
members.jsonl.gz (landing.core.member_figures) now and before, and the version's changes, in; an alert dict out.

The summary is one paragraph a person can send as it is; `csv_rows` gives a mail merge's lines.
"""

from collections.abc import Iterable, Iterator

from landing.core.labels import printable
from landing.core.spreadsheet import cell

SHARE_DROP = 0.05  # a fall in the share of correct pages smaller than this is sampling noise, not news
LISTED = 5  # items of one kind named in a summary; the rest are counted
CSV_FIELDS = ("member", "name", "subject", "body")
_AGENCY = {"crossref": "Crossref member", "datacite": "DataCite client"}


def moves(changes: dict | None) -> dict[str, dict]:
    """prefix -> {"from": [domains that went unseen], "to": [domains that appeared]}, for the prefixes of a version's
    changes (changes.json) where a domain appeared while another went unseen: a site that moved.

    >>> pairs = [{"prefix": "10.1", "domain": "new.example", "appeared": ["recognised"], "unseen-since": None},
    ...          {"prefix": "10.1", "domain": "old.example", "appeared": [], "unseen-since": "2030-01-01"},
    ...          {"prefix": "10.2", "domain": "more.example", "appeared": ["recognised"], "unseen-since": None}]
    >>> moves({"pairs": pairs})
    {'10.1': {'from': ['old.example'], 'to': ['new.example']}}
    """
    found: dict[str, tuple[list, list]] = {}
    for row in (changes or {}).get("pairs", ()):
        went, came = found.setdefault(row["prefix"], ([], []))
        if row.get("unseen-since"):
            went.append(row["domain"])
        if "recognised" in row.get("appeared", ()):
            came.append(row["domain"])
    return {
        prefix: {"from": sorted(went), "to": sorted(came)} for prefix, (went, came) in found.items() if went and came
    }


def to_fix(member: dict) -> dict:
    """What a member's figures say it should fix: prefixes that lead to no page stating their DOIs, and the domains
    whose pages lack the DOI's meta tags, state another DOI, or cannot be read."""
    domains = member.get("domains", [])
    return {
        "prefixes-without-good-domain": [p["prefix"] for p in member.get("prefixes", []) if not p["good-domains"]],
        "domains-missing-doi": [
            {"domain": d["domain"], "dois": d["dois"], "missing": d["correctness"]["missing"]}
            for d in domains
            if d["correctness"].get("missing")
        ],
        "domains-wrong-doi": [
            {
                "domain": d["domain"],
                "dois": d["dois"],
                "incorrect": d["correctness"].get("incorrect", 0),
                "conflict": d["correctness"].get("conflict", 0),
                "example": d.get("wrong-example"),
            }
            for d in domains
            if d["correctness"].get("incorrect") or d["correctness"].get("conflict")
        ],
        "failing-domains": [
            {"domain": d["domain"], "dois": d["dois"], "errors": d["errors"]} for d in domains if d["failed"]
        ],
    }


def new_failures(now: dict, before: dict) -> list[dict]:
    """Failure classes on a member's domains that its previous figures did not have there. A domain absent before
    counts only when the previous figures listed all the member's domains (else it may have been beyond the list).

    >>> was = {"domains": [{"domain": "a.example", "errors": {"dns": 1}}], "domains-total": 1}
    >>> new_failures({"domains": [{"domain": "a.example", "errors": {"dns": 2, "robots": 3}},
    ...                           {"domain": "b.example", "errors": {"timeout": 1}}]}, was)
    [{'domain': 'a.example', 'class': 'robots', 'dois': 3}, {'domain': 'b.example', 'class': 'timeout', 'dois': 1}]
    """
    had = {d["domain"]: d["errors"] for d in before.get("domains", [])}
    complete = before.get("domains-total", 0) <= len(had)
    found = []
    for domain in now.get("domains", []):
        if domain["domain"] not in had and not complete:
            continue
        old = had.get(domain["domain"], {})
        found += [
            {"domain": domain["domain"], "class": c, "dois": n} for c, n in domain["errors"].items() if c not in old
        ]
    return found


def share_drop(now: dict, before: dict | None) -> dict | None:
    """{"from", "to"} when the share of correct pages fell by SHARE_DROP or more, else None.

    >>> share_drop({"ok-share": 0.8}, {"ok-share": 0.9}), share_drop({"ok-share": 0.88}, {"ok-share": 0.9})
    ({'from': 0.9, 'to': 0.8}, None)
    """
    was, is_ = (before or {}).get("ok-share"), now.get("ok-share")
    if was is None or is_ is None or was - is_ < SHARE_DROP - 1e-9:
        return None
    return {"from": was, "to": is_}


def alert(now: dict, before: dict | None, moved: dict[str, dict], version: str, previous: str | None) -> dict | None:
    """The alert of one member (Contract 2 of docs/artifacts.md), or None when it has nothing to fix and nothing got
    worse. `moved`: `moves()` of the version's changes (only the member's prefixes are read)."""
    fix = to_fix(now)
    worse = {
        "new-failures": new_failures(now, before) if before is not None else [],
        "moved": [
            {"prefix": p["prefix"], **moved[p["prefix"]]} for p in now.get("prefixes", []) if p["prefix"] in moved
        ],
        "share-drop": share_drop(now, before),
    }
    if not any(fix.values()) and not any(worse.values()):
        return None
    made = {"member": now["member"], "name": now.get("name"), "version": version, "previous": previous}
    return {**made, "fix": fix, "worse": worse, "summary": summary(now, fix, worse, previous)}


def who(member: dict) -> str:
    """How a summary names a member: its agency's word, its id, and its name when known.

    >>> who({"ra": "crossref", "id": "340", "name": "PLOS"}), who({"ra": "datacite", "id": "cern.zenodo"})
    ('Crossref member 340 (PLOS)', 'DataCite client cern.zenodo')
    """
    said = f"{_AGENCY.get(member.get('ra'), 'Member')} {member.get('id') or member.get('member')}"
    return printable(f"{said} ({member['name']})" if member.get("name") else said)


def _some(items: list[str]) -> str:
    """At most LISTED items, joined, and how many more.

    >>> _some(["a"]), _some(["a", "b"]), _some(list("abcdefg"))
    ('a', 'a and b', 'a, b, c, d, e and 2 more')
    """
    shown = [printable(item) for item in items[:LISTED]]
    rest = len(items) - len(shown)
    if rest:
        return ", ".join(shown) + f" and {rest} more"
    return shown[0] if len(shown) == 1 else ", ".join(shown[:-1]) + " and " + shown[-1]


def _percent(value: float) -> str:
    return f"{value * 100:.1f}%"


def _count(n: int, word: str) -> str:
    """n and the word, plural unless n is 1.

    >>> _count(1, "DOI"), _count(1200, "landing page")
    ('1 DOI', '1,200 landing pages')
    """
    return f"{n:,} {word}" if n == 1 else f"{n:,} {word}s"


def summary(member: dict, fix: dict, worse: dict, previous: str | None) -> str:
    """The alert as one plain-text paragraph: the figures, what to fix, what got worse."""
    read, ok, failed = member.get("read", 0), member.get("correctness", {}).get("ok", 0), member.get("failed", 0)
    said = f"{who(member)}: of {_count(member.get('dois', 0), 'DOI')} sampled, {_count(read, 'landing page')} read"
    parts = [said + (f", {ok:,} ({_percent(ok / read)}) with a correct DOI meta tag." if read else ".")]
    if fix["prefixes-without-good-domain"]:
        some = fix["prefixes-without-good-domain"]
        parts.append(f"No landing page of prefix{'es' if len(some) > 1 else ''} {_some(some)} states its DOI.")
    if fix["domains-missing-doi"]:
        named = [f"{d['domain']} ({d['missing']:,} of {d['dois']:,})" for d in fix["domains-missing-doi"]]
        parts.append(f"Pages lack a DOI meta tag on {_some(named)}.")
    if fix["domains-wrong-doi"]:
        named = [
            f"{d['domain']} ({d['incorrect'] + d['conflict']:,} of {d['dois']:,}"
            + (f", e.g. {d['example']})" if d["example"] else ")")
            for d in fix["domains-wrong-doi"]
        ]
        parts.append(f"Meta tags state another DOI, or several, on {_some(named)}.")
    if failed:
        classes = ", ".join(f"{c} {n:,}" for c, n in member.get("errors", {}).items())
        named = [d["domain"] for d in fix["failing-domains"]]
        where = f", on {_some(named)}" if named else ""
        parts.append(f"{_count(failed, 'landing page')} could not be read ({classes}){where}.")
    since = f"since version {previous}" if previous else "since the previous version"
    if worse["moved"]:
        named = [f"{m['prefix']} from {', '.join(m['from'])} to {', '.join(m['to'])}" for m in worse["moved"]]
        parts.append(f"Moved {since}: {_some(named)}.")
    if worse["new-failures"]:
        named = [f"{f['class']} on {f['domain']} ({f['dois']:,})" for f in worse["new-failures"]]
        parts.append(f"New failures {since}: {_some(named)}.")
    if worse["share-drop"]:
        drop = worse["share-drop"]
        parts.append(
            f"The share of correct pages fell from {_percent(drop['from'])} to {_percent(drop['to'])} {since}."
        )
    return printable(" ".join(parts))


def subject(found: dict) -> str:
    """A mail's subject line for an alert.

    >>> subject({"member": "crossref/340", "name": None, "fix": {"a": [1, 2]}, "worse": {"b": [], "c": None}})
    'DOIs on your landing pages: 2 things to fix (crossref/340)'
    """
    fixes = sum(len(items) for items in found["fix"].values())
    worse = sum(len(v) if isinstance(v, list) else v is not None for v in found["worse"].values())
    said = [f"{fixes} {'thing' if fixes == 1 else 'things'} to fix"] if fixes else []
    said += [f"{worse} {'change' if worse == 1 else 'changes'} for the worse"] if worse else []
    return printable(f"DOIs on your landing pages: {', '.join(said)} ({found['member']})")


def csv_rows(alerts: Iterable[dict]) -> Iterator[tuple[str, ...]]:
    """alerts.csv's lines: the header, then member, name, subject and body per alert."""
    yield CSV_FIELDS
    for found in alerts:
        name = printable(found["name"]) if found.get("name") else None
        yield tuple(map(cell, (found["member"], name, subject(found), found["summary"])))
