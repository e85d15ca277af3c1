"""How a world changes over simulated time: events drawn from a seed at rates a caller sets, written to timeline.jsonl.

A world's files say what exists (every owner, prefix, DOI and route that ever will); the timeline says when: sites
move to new domains, owners and prefixes appear, pages lose or regain their DOI meta tags, sites go down and come
back. The server applies each event once the clock passes it (landing_dev.sandbox.evolving); the truth over time is
read back by landing_dev.sandbox.timeline. docs/sandbox.md "Evolving worlds" describes the events.
"""

import json
import random
from dataclasses import asdict, dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from urllib.parse import urlsplit

from landing_dev.sandbox.world import STAMP, TIMELINE, WorldError, read_world_json

KINDS = ("background-updates", "new-owner", "new-prefix", "move", "meta-tags-lost", "meta-tags-gained", "down", "up")
GONE_SHARE = 0.25  # registry-visible moves whose old domain stops answering; the others redirect to the new one
REFUSED_SHARE = 0.3  # outages that refuse connections; the others answer 503
REGAIN_SHARE = 0.5  # sites that lost their DOI meta tags and get them back later
NEWEST_SHARE = 0.9  # owners that may appear later: the smaller 90% (new members start small)
MOST_NEW = 1 / 3  # at most this share of the eligible owners appears later


@dataclass(frozen=True)
class Rates:
    """What changes, how often: shares of the sites per 30 days, owners and prefixes per week."""

    start: str = "2030-01-01T00:00:00Z"  # the simulated instant the timeline starts at (a crawl's LANDING_CLOCK)
    days: float = 90.0  # the horizon: events fall in [start, start + days)
    moves: float = 0.01  # share of sites that move to a new domain per 30 days
    registry_moves: float = 0.5  # share of the moves whose owners update their DOIs' registered URLs
    updates: float = 0.002  # share of the DOIs re-deposited a day with no URL change (a new citation match...)
    new_owners: float = 1.0  # Crossref members or DataCite clients registered per week
    new_prefixes: float = 0.5  # prefixes added to existing owners per week
    meta_flips: float = 0.01  # share of the sites with DOI meta tags that lose them per 30 days
    outages: float = 0.02  # share of the sites that go down per 30 days
    outage_hours: float = 12.0  # an outage's mean length (each lasts 0.5 to 1.5 times it)

    def check(self) -> None:
        """ValueError naming the first value no timeline can be drawn with."""
        try:
            datetime.strptime(self.start, STAMP)
        except ValueError:
            raise ValueError(f"start {self.start!r}: use a UTC instant such as 2030-01-01T00:00:00Z") from None
        for name, value in asdict(self).items():
            if name != "start" and not (isinstance(value, int | float) and value >= 0):
                raise ValueError(f"{name}={value!r}: use a number, 0 or more")
        if self.registry_moves > 1:
            raise ValueError(f"registry_moves={self.registry_moves!r}: use a share, 0 to 1")
        if self.days <= 0:
            raise ValueError(f"days={self.days!r}: the horizon must be more than 0 days")


@dataclass(frozen=True)
class Site:
    """A host that serves landing pages, with what lives on it."""

    host: str
    prefixes: frozenset  # of (ra, prefix)
    owners: frozenset  # of (ra, owner id)
    meta: bool  # some of its pages carry DOI meta tags


def sites_and_owners(directory: Path) -> tuple[list[Site], list[dict]]:
    """The sites of a world (the hosts its truth's landing pages live on) and its owners, each with its DOIs per
    prefix: {"ra", "owner", "prefixes": [listed...], "dois": {prefix: n}}."""
    directory = Path(directory)
    world = read_world_json(directory)
    owners = {("crossref", str(m["id"])): m.get("prefixes", []) for m in world.get("members", [])}
    owners.update({("datacite", str(c["id"])): c.get("prefixes", []) for c in world.get("clients", [])})
    dois: dict = {key: {} for key in owners}
    found: dict = {}
    path = directory / "truth.jsonl"
    if not path.is_file():
        raise WorldError(f"{directory}: no truth.jsonl here; run `scrapy sandbox truth {directory}` first")
    with path.open(encoding="utf-8") as lines:
        for line in lines:
            if not line.strip():
                continue
            record = json.loads(line)
            owner, prefix = (record["ra"], str(record["member_id"])), record["prefix"]
            counts = dois.setdefault(owner, {})
            counts[prefix] = counts.get(prefix, 0) + 1
            host = urlsplit(record.get("landing_url") or "").hostname
            if host:
                site = found.setdefault(host, (set(), set(), [False]))
                site[0].add((record["ra"], prefix))
                site[1].add(owner)
                site[2][0] |= bool(record.get("meta_tags"))
    sites = [Site(h, frozenset(p), frozenset(o), m[0]) for h, (p, o, m) in sorted(found.items())]
    listed = [
        {"ra": ra, "owner": owner, "prefixes": list(owners.get((ra, owner), [])), "dois": dois[(ra, owner)]}
        for ra, owner in sorted(dois)
    ]
    return sites, listed


def _count(rate: float, days: float, per: float, of: int = 1) -> int:
    return round(rate * of * days / per)


def plan(sites: list[Site], owners: list[dict], rates: Rates, seed: int = 0) -> list[dict]:
    """The timeline's events, in order of time: the same sites, owners, rates and seed give the same events."""
    rates.check()
    rng = random.Random(f"evolve:{seed}")
    start = datetime.strptime(rates.start, STAMP).replace(tzinfo=UTC)
    horizon = rates.days * 86400

    def at(offset: float) -> datetime:
        return start + timedelta(seconds=int(offset))

    events = []
    shared = {o for site in sites if len(site.owners) > 1 for o in site.owners}
    sizes = sorted(sum(o["dois"].values()) for o in owners)
    small = sizes[int(len(sizes) * NEWEST_SHARE) - 1] if sizes else 0
    eligible = [o for o in owners if (o["ra"], o["owner"]) not in shared and 0 < sum(o["dois"].values()) <= small]
    for ra in ("crossref", "datacite"):  # every registry keeps an owner listed from the start
        of_ra = [o for o in eligible if o["ra"] == ra]
        if of_ra and len(of_ra) == sum(o["ra"] == ra for o in owners):
            eligible.remove(of_ra[0])
    wanted = min(_count(rates.new_owners, rates.days, 7), int(len(eligible) * MOST_NEW))
    new_owners = rng.sample(eligible, wanted)
    for owner in new_owners:
        events.append(
            {"at": at(rng.uniform(0, horizon)), "kind": "new-owner", "ra": owner["ra"], "owner": owner["owner"]}
            | {"prefixes": sorted(owner["prefixes"])}
        )
    taken = {(o["ra"], o["owner"]) for o in new_owners}
    growing = [
        (o, p)
        for o in owners
        if (o["ra"], o["owner"]) not in taken
        for p in o["prefixes"][1:2]
        if o["dois"].get(p) and sum(o["dois"].values()) > o["dois"][p]
    ]
    new_prefixes = rng.sample(growing, min(_count(rates.new_prefixes, rates.days, 7), len(growing)))
    for owner, prefix in new_prefixes:
        events.append(
            {"at": at(rng.uniform(0, horizon)), "kind": "new-prefix", "ra": owner["ra"], "owner": owner["owner"]}
            | {"prefix": prefix}
        )
    appearing = {(o["ra"], p) for o in new_owners for p in o["dois"]} | {(o["ra"], p) for o, p in new_prefixes}
    stable = [s for s in sites if not (s.owners & taken) and not (s.prefixes & appearing)]
    for number, site in enumerate(
        rng.sample(stable, min(_count(rates.moves, rates.days, 30, len(stable)), len(stable)))
    ):
        labels = site.host.split(".")
        to = f"{'-'.join(labels[:-1])}.platform{number % 7}.example"
        old = "gone" if rng.random() < GONE_SHARE else "redirect"
        # Drawn apart from the timeline's stream, so that a seed's other events stay the same whatever the share.
        registry = random.Random(f"registry:{seed}:{site.host}").random() < rates.registry_moves
        move = {
            "kind": "move",
            "host": site.host,
            "to": to,
            "old": old if registry else "redirect",
            "registry": registry,
        }
        events.append({"at": at(rng.uniform(0, horizon)), **move})
    for site in rng.sample(stable, min(_count(rates.outages, rates.days, 30, len(stable)), len(stable))):
        length = rng.uniform(0.5, 1.5) * rates.outage_hours * 3600
        begins = rng.uniform(0, max(horizon - length, 0))
        how = "refused" if rng.random() < REFUSED_SHARE else "503"
        events.append({"at": at(begins), "kind": "down", "host": site.host, "how": how})
        if begins + length < horizon:
            events.append({"at": at(begins + length), "kind": "up", "host": site.host})
    tagged = [s for s in stable if s.meta]
    for site in rng.sample(tagged, min(_count(rates.meta_flips, rates.days, 30, len(tagged)), len(tagged))):
        lost = rng.uniform(0, horizon)
        events.append({"at": at(lost), "kind": "meta-tags-lost", "host": site.host})
        back = lost + rng.uniform(1, 14) * 86400
        if rng.random() < REGAIN_SHARE and back < horizon:
            events.append({"at": at(back), "kind": "meta-tags-gained", "host": site.host})
    return _described(sorted(events, key=lambda e: (e["at"], KINDS.index(e["kind"]), e.get("host", ""))), sites)


def given(sites: list[Site], events: list[dict], rates: Rates) -> list[dict]:
    """A timeline from events a caller names ({"at", "kind", "host"...}: a site's `move`, `meta-tags-lost`,
    `meta-tags-gained`, `down` and `up`), checked against the sites and the horizon, in order of time; ValueError
    naming the first event no timeline can hold. A move's `to` defaults as `plan` draws it, `old` to "redirect",
    `registry` (whether the owner updates its DOIs' registered URLs) to true."""
    rates.check()
    start = datetime.strptime(rates.start, STAMP).replace(tzinfo=UTC)
    hosts = {s.host for s in sites}
    drawn = []
    for number, event in enumerate(events):
        kind, host = event.get("kind"), event.get("host")
        if kind not in KINDS or kind in ("background-updates", "new-owner", "new-prefix"):
            raise ValueError(f"event {number + 1}: kind {kind!r}: use move, meta-tags-lost/gained, down or up")
        if host not in hosts:
            raise ValueError(f"event {number + 1}: host {host!r} serves no landing page of this world")
        try:
            at = datetime.strptime(str(event.get("at")), STAMP).replace(tzinfo=UTC)
        except ValueError:
            raise ValueError(f"event {number + 1}: at {event.get('at')!r}: use a UTC instant") from None
        if not start <= at < start + timedelta(days=rates.days):
            raise ValueError(f"event {number + 1}: at {event['at']} falls outside the horizon")
        drawn.append({**event, "at": at})
        if kind == "move":
            labels = host.split(".")
            drawn[-1].setdefault("to", f"{'-'.join(labels[:-1])}.platform{number % 7}.example")
            drawn[-1].setdefault("old", "redirect")
            drawn[-1].setdefault("registry", True)
            if not drawn[-1]["registry"] and drawn[-1]["old"] == "gone":
                raise ValueError(f"event {number + 1}: a registry-silent move keeps a redirect: old 'redirect'")
        elif kind == "down":
            drawn[-1].setdefault("how", "refused")
    return _described(sorted(drawn, key=lambda e: (e["at"], KINDS.index(e["kind"]), e["host"])), sites)


def _described(events: list[dict], sites: list[Site]) -> list[dict]:
    """Each event with its stamp, and a site's events with the domain it is on then and the prefixes it touches."""
    touched = {s.host: s for s in sites}
    domain: dict[str, str] = {}
    for event in events:
        event["at"] = event["at"].strftime(STAMP)
        host = event.get("host")
        if host is None:
            continue
        event["from"] = domain.get(host, host)
        if event["kind"] == "move":
            domain[host] = event["to"]
        else:
            event["domain"] = domain.get(host, host)
            del event["from"]
        event["prefixes"] = sorted(p for _, p in touched[host].prefixes)
        event["owners"] = sorted(f"{ra}/{o}" for ra, o in touched[host].owners)
    return events


def background(rates: Rates, seed: int) -> dict:
    """The event that starts the background updates: every DOI re-deposited at `rate` a day, at times a hash of
    (seed, DOI, n) gives (landing_dev.sandbox.deposits), so that no event per DOI is written.

    >>> background(Rates(days=30), 7)
    {'at': '2030-01-01T00:00:00Z', 'kind': 'background-updates', 'rate': 0.002, 'seed': 7, 'days': 30}
    """
    return {"at": rates.start, "kind": "background-updates", "rate": rates.updates, "seed": seed, "days": rates.days}


def evolve(directory, rates: Rates = Rates(), seed: int = 0, events: list[dict] | None = None) -> dict:
    """Write a world's timeline.jsonl from its world.json and truth.jsonl, drawn at `rates` or, given `events`, those
    (`given`); the count of each kind of event."""
    directory = Path(directory)
    sites, owners = sites_and_owners(directory)
    events = plan(sites, owners, rates, seed) if events is None else given(sites, events, rates)
    if rates.updates:
        events = [background(rates, seed), *events]
    with (directory / TIMELINE).open("w", encoding="utf-8") as out:
        for event in events:
            out.write(json.dumps(event) + "\n")
    counts = {kind: sum(e["kind"] == kind for e in events) for kind in KINDS}
    return {"events": len(events), **counts}
