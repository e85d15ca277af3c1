"""What the registries record of each DOI over time: its registered URL and its update dates, and the windows of
update dates the delta queries ask for (Crossref's `from-update-date`, DataCite's `updated:[A TO B]`).

A DOI's update date at a moment is its latest deposit by then: its first (within the year before the timeline starts,
or when its owner or prefix appears), each registry-visible move of the site its registered URL names, and the
background updates (a re-deposit, a new citation match) that a Poisson process per DOI draws from a hash of (seed,
DOI, n), at the rate the timeline's `background-updates` event gives. The index keeps them in table `deposit` (rid,
at), indexed on `at`: a window costs a range scan. docs/sandbox.md "Delta queries" describes the API side.
"""

import base64
import hashlib
import json
import math
import re
from datetime import UTC, datetime, timedelta
from urllib.parse import urlsplit

from landing_dev.sandbox.evolving import with_host

FIRST_SPREAD = 365 * 86400  # first deposits fall within this many seconds before the anchor
ANCHOR = datetime(2020, 1, 1, tzinfo=UTC).timestamp()  # a world without a timeline: deposited before this
_STAMP = re.compile(r"^(\d{4})(?:-(\d{2})(?:-(\d{2})(?:T(\d{2})(?::(\d{2})(?::(\d{2})(?:\.\d+)?)?)?Z?)?)?)?$")


def unit(text: str) -> float:
    """A number in [0, 1) that a string always gives (a seeded draw without a generator).

    >>> unit("a") == unit("a"), 0 <= unit("b") < 1
    (True, True)
    """
    return int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "big") / 2**64


def first_deposit(key: str, anchor: float) -> int:
    """When a DOI listed from the start was deposited: within the year before the anchor, as its key gives.

    >>> anchor = datetime(2030, 1, 1, tzinfo=UTC).timestamp()
    >>> anchor - FIRST_SPREAD <= first_deposit("10.1/a", anchor) < anchor
    True
    """
    return int(anchor - FIRST_SPREAD * unit("first:" + key)) - 1


def background(key: str, seed, rate: float, start: float, end: float) -> list[int]:
    """The times in [start, end) a DOI is re-deposited with no URL change: `rate` a day on average, gaps drawn
    exponential from a hash of (seed, DOI, n).

    >>> background("10.1/a", 1, 0, 0, 1e9)
    []
    >>> times = background("10.1/a", 1, 0.5, 0, 400 * 86400)
    >>> times == sorted(times) and 100 < len(times) < 300 and times == background("10.1/a", 1, 0.5, 0, 400 * 86400)
    True
    """
    times, at = [], start
    while rate > 0:
        at += -math.log(1 - unit(f"update:{seed}:{key}:{len(times)}")) / rate * 86400
        if at >= end:
            return times
        times.append(int(at))
    return times


def build(db) -> None:
    """Table `deposit` of an index whose tables `doi` and `event` are filled: every DOI's deposits, once each."""
    events = [(at, json.loads(body)) for at, body in db.execute("select at, body from event order by rowid")]
    updates = next((e for _, e in events if e["kind"] == "background-updates"), None)
    anchor = events[0][0] if events else ANCHOR
    moves: dict[str, list[float]] = {}
    for at, event in events:
        if event["kind"] == "move" and event.get("registry", True):
            moves.setdefault(event["host"].lower(), []).append(at)
    end = anchor + float(updates["days"]) * 86400 if updates else anchor
    names = "|".join(re.escape(host) for host in sorted(moves, key=len, reverse=True))
    on_moved = re.compile(rf"^[a-z][a-z0-9+.-]*://(?:[^/@]*@)?({names})(?=[:/?#]|$)", re.IGNORECASE) if moves else None
    db.execute("create table deposit (rid integer, at real)")
    rows = []
    for rid, key, url, since in db.execute("select rid, key, url, since from doi").fetchall():
        first = since or first_deposit(key, anchor)
        moved = on_moved.match(url) if on_moved else None  # a regex, not urlsplit: it runs for every DOI
        times = {first, *(moves[moved.group(1).lower()] if moved else ())}
        if updates:
            times.update(background(key, updates["seed"], float(updates["rate"]), anchor, end))
        rows.extend((rid, at) for at in times if at >= first)
        if len(rows) >= 50_000:
            db.executemany("insert into deposit values (?, ?)", rows)
            rows.clear()
    db.executemany("insert into deposit values (?, ?)", rows)
    db.executescript("create index deposit_at on deposit (at, rid); create index deposit_rid on deposit (rid, at);")


def registered(world, record: dict | None) -> dict | None:
    """A DOI's record as the registry holds it now: its URL on the domain a registry-visible move took its site to.

    The record is left as it is when nothing moved; `world.registered`: base host -> new domain.
    """
    if record is None or not world.registered:
        return record
    host = (urlsplit(record["url"]).hostname or "").lower()
    return {**record, "url": with_host(record["url"], world.registered[host])} if host in world.registered else record


def updated(world, record: dict) -> dict:
    """The registered record with `updated`: its latest deposit by the world's clock (Unix time)."""
    query = "select max(d.at) from deposit d join doi on d.rid = doi.rid where doi.key = ? and d.at <= ?"
    at = world.db.execute(query, (record["doi"].lower(), world.now())).fetchone()[0]
    return {**registered(world, record), "updated": at}


def period(text: str) -> tuple[float, float]:
    """The instants a UTC date of any precision covers, [start, end): `2030`, `2030-01`, ..., `2030-01-02T03:04:05Z`;
    ValueError for anything else.

    >>> [datetime.fromtimestamp(t, UTC).isoformat()[:19] for t in period("2030-01-02T03")]
    ['2030-01-02T03:00:00', '2030-01-02T04:00:00']
    >>> period("2030-12")[1] == datetime(2031, 1, 1, tzinfo=UTC).timestamp(), period("2030-01-02T03:04:05")[1] % 60
    (True, 6.0)
    """
    found = _STAMP.match(text.strip().replace("\\:", ":"))
    if not found:
        raise ValueError(f"{text!r} is not a date: use YYYY, YYYY-MM, YYYY-MM-DD or YYYY-MM-DDTHH[:MM[:SS]]")
    parts = [int(p) for p in found.groups() if p is not None]
    start = datetime(*parts, *[1] * max(0, 3 - len(parts)), tzinfo=UTC)
    if len(parts) == 1:
        end = start.replace(year=start.year + 1)
    elif len(parts) == 2:
        end = (start + timedelta(days=31)).replace(day=1)
    else:
        end = start + timedelta(**{("days", "hours", "minutes", "seconds")[len(parts) - 3]: 1})
    return start.timestamp(), end.timestamp()


_RANGE = re.compile(r"^\s*updated\s*:\s*([\[{])\s*(\S+)\s+TO\s+(\S+)\s*([\]}])\s*$")


def lucene_range(query: str) -> tuple[float, float] | None:
    """A DataCite `query=updated:[A TO B]` as [start, end) instants (None: not such a query); `{`/`}` exclude a bound,
    `*` leaves it open, an inclusive end covers its whole date (`[2030-01-02 TO 2030-01-03]`: two days).

    >>> start, end = lucene_range(r"updated:[2030-01-02T03\\:00\\:00Z TO 2030-01-02T04\\:00\\:00Z]")
    >>> end - start
    3601.0
    >>> lucene_range("updated:{2030-01-02 TO *}")[0] == period("2030-01-03")[0], lucene_range("titles:x")
    (True, None)
    """
    found = _RANGE.match(query)
    if not found:
        return None
    opening, low, high, closing = found.groups()
    start = -math.inf if low == "*" else period(low)[opening == "{"]
    end = math.inf if high == "*" else period(high)[closing == "]"]
    return start, end


def window(world, ra, start, end, after=None, rows=1000, owner=None, prefix=None, offset=0) -> tuple[list[dict], int]:
    """A page of the DOIs whose update date at the world's clock falls in [start, end), ordered by (update, rid),
    from after the (update, rid) `after` names; and how many the window holds. Each record has `updated` and `rid`."""
    now = world.now()
    where = ["d.at >= ?", "d.at < ?", "d.at <= ?", "doi.ra = ?"]
    args = [start, end, now, ra]
    if owner is not None:
        where, args = [*where, "doi.owner = ?"], [*args, str(owner)]
    if prefix is not None:
        where, args = [*where, "doi.prefix = ?"], [*args, prefix.lower()]
    # Only a DOI's latest deposit by now dates it: one updated again later has left the window.
    where.append("not exists (select 1 from deposit e where e.rid = d.rid and e.at > d.at and e.at <= ?)")
    args.append(now)
    # A cross join keeps SQLite's loop on the window's range of `deposit_at`, never on every DOI of the registry.
    joined = "from deposit d cross join doi on doi.rid = d.rid where " + " and ".join(where)
    total = world.db.execute("select count(*) " + joined, args).fetchone()[0]
    if after is not None:
        joined += " and (d.at > ? or (d.at = ? and d.rid > ?))"
        args = [*args, after[0], after[0], after[1]]
    columns = "doi.doi, doi.ra, doi.owner, doi.prefix, doi.url, doi.pii, doi.short, doi.title, d.at, d.rid"
    query = f"select {columns} {joined} order by d.at, d.rid limit ? offset ?"
    found = world.db.execute(query, [*args, rows, offset]).fetchall()
    names = ("doi", "ra", "owner", "prefix", "url", "pii", "short", "title", "updated", "rid")
    return [registered(world, dict(zip(names, row))) for row in found], total


def cursor(after: tuple[float, int] | None) -> str:
    """An opaque cursor naming the last (update, rid) a page answered; `decursor` reads it back.

    >>> decursor(cursor((1.5, 7))), decursor(cursor(None)), decursor("*")
    ((1.5, 7), None, None)
    """
    return base64.urlsafe_b64encode(json.dumps({"a": list(after) if after else None}).encode()).decode()


def decursor(token: str) -> tuple[float, int] | None:
    """The (update, rid) a cursor names (None: from the start); ValueError for one no page gave."""
    if token in ("*", "1"):
        return None
    try:
        after = json.loads(base64.urlsafe_b64decode(token.encode()))["a"]
        return None if after is None else (float(after[0]), int(after[1]))
    except Exception:
        raise ValueError(f"cursor {token!r} is not valid") from None


def stamp(at: float) -> str:
    """A Unix time as the APIs write it.

    >>> stamp(datetime(2030, 1, 2, 3, 4, 5, tzinfo=UTC).timestamp())
    '2030-01-02T03:04:05Z'
    """
    return datetime.fromtimestamp(at, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
