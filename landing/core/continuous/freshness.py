"""The freshness planner's policy: which prefixes continuous sampling samples next, within a budget of requests.

Every known prefix carries when it was last sampled and what its last visits signalled. Each slice of time (an
hour, say) the planner spends that slice's share of the daily budget in this order: the DOIs the registries moved
(landing.core.continuous.registry_deltas), then prefixes never sampled (largest first), then prefixes whose last visits signalled a change and whose recheck is due (sampled deeper),
then the most stale of those at their target age, so that none gets older than `refresh_days` while the budget
allows. When it does not, the plan says how many days the budget can keep (`Plan.keeps_days`), as a value. Time
comes in as `now`: the clock is read by the caller (landing/clock.py). docs/continuous.md is the design.
"""

import math
import sys
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from landing.core.continuous.prefix_signals import (  # noqa: F401 (signals and its values are read here too)
    DOMAIN_CHANGED,
    FAILING,
    META_TAGS_CHANGED,
    NEW,
    NO_SIGNALS,
    REGISTRY_CHANGED,
    SHARE_FELL,
    SIGNALS,
    signals,
)
from landing.core.sampling.sample_sizes import sample_size

# Why a prefix was picked, in priority order: the registries moved DOIs of it (landing.core.continuous.registry_deltas),
# never sampled, its last visits signalled, stale.
REGISTRY, NEVER_SAMPLED, SIGNALLED, STALE = "registry", "never-sampled", "signalled", "stale"
SAMPLE_REQUESTS = 1  # the API query that draws one prefix's sample (Crossref or DataCite, [crawl.md "Sampling"])
DAY = timedelta(days=1)
STAMP = "%Y-%m-%dT%H:%M:%SZ"  # stored timestamps (landing.clock.FORMAT)


@dataclass(frozen=True, slots=True)  # slots: continuous mode keeps one per known prefix
class Prefix:
    """A known prefix: who owns it, how many DOIs it has, when it was last sampled (None: never), the
    signals of its last visits (`SIGNALS`), and how many DOIs the registries' deltas keep for a visit."""

    ra: str
    owner: str
    prefix: str
    dois: int
    sampled: datetime | None = None
    signals: frozenset[str] = frozenset()
    registry: int = 0

    def __post_init__(self):
        # In UTC once, here: a plan compares every known prefix's `sampled` each slice.
        if self.sampled is not None and self.sampled.tzinfo is not UTC:
            object.__setattr__(self, "sampled", _utc(self.sampled))


@dataclass(frozen=True)
class Policy:
    """refresh_days: no prefix older than this; recheck_days: a signalled prefix is sampled again this soon;
    sample_min/sample_max: DOIs per refresh (the full run's proportional rule, per prefix); changed_dois: the
    deeper sample of a signalled prefix."""

    refresh_days: float
    recheck_days: float
    sample_min: int
    sample_max: int
    changed_dois: int


@dataclass(frozen=True)
class Budget:
    """requests_per_day: all requests continuous sampling may make a day (samples and visits); requests_per_doi:
    what one DOI's visit costs on average (the resolver and the publisher's hops)."""

    requests_per_day: float
    requests_per_doi: float


@dataclass(frozen=True)
class Pick:
    prefix: Prefix
    dois: int
    reason: str
    requests: float


@dataclass(frozen=True)
class Plan:
    """The slice's picks in order and what they cost; `carry`: the overdraft (0 or less) the next slice starts with;
    `needed_per_day`: requests a day that refresh every known prefix at its target age (`target_days`), before
    new and signalled ones; `keeps_days`: the refresh period the budget sustains; `within`: keeps_days is no more
    than the target age, so that no prefix gets older than refresh_days."""

    picks: tuple[Pick, ...]
    requests: float
    carry: float
    needed_per_day: float
    keeps_days: float
    within: bool


def requests_per_day(prefixes: int, dois_per_prefix: float, requests_per_doi: float, refresh_days: float) -> float:
    """Requests a day that sample every prefix once per refresh_days: one sample query and its DOIs' visits each.

    The registries' scale (docs/continuous.md "What a day costs"): about 30,000 prefixes, 10 DOIs each, 3 requests
    a DOI, every 30 days; then the 67,033 prefixes of the full-shape sandbox world, every 7 days:

    >>> requests_per_day(30_000, 10, 3, 30)
    31000.0
    >>> round(requests_per_day(67_033, 10, 3, 7))
    296860
    """
    _positive(refresh_days=refresh_days, requests_per_doi=requests_per_doi)
    return prefixes * request_cost(dois_per_prefix, requests_per_doi) / refresh_days


def days_kept(prefixes: int, dois_per_prefix: float, requests_per_doi: float, per_day: float) -> float:
    """The refresh period (days) a budget of per_day requests sustains: the inverse of `requests_per_day`.

    >>> days_kept(30_000, 10, 3, 31_000)
    30.0
    >>> round(days_kept(67_033, 10, 3, 50_000), 1)
    41.6
    """
    _positive(requests_per_doi=requests_per_doi)
    need = prefixes * request_cost(dois_per_prefix, requests_per_doi)
    if need <= 0:
        return 0.0
    return need / per_day if per_day > 0 else math.inf


def request_cost(dois: float, requests_per_doi: float) -> float:
    """What sampling one prefix costs: its sample query and its DOIs' visits.

    >>> request_cost(10, 3), request_cost(0, 3)
    (31, 1)
    """
    return SAMPLE_REQUESTS + dois * requests_per_doi


def depth(prefix: Prefix, largest: int, policy: Policy) -> int:
    """DOIs to sample from a prefix: the full run's proportional size (the largest prefix gets sample_max, any
    other at least sample_min), at least changed_dois when its last visits signalled something; never more
    than it has.

    >>> policy = Policy(refresh_days=30, recheck_days=1, sample_min=10, sample_max=100, changed_dois=30)
    >>> depth(Prefix("crossref", "78", "10.1016", 20_000_000), 20_000_000, policy)
    100
    >>> depth(Prefix("crossref", "340", "10.1371", 300_000), 20_000_000, policy)
    10
    >>> depth(Prefix("crossref", "340", "10.1371", 300_000, signals=frozenset({DOMAIN_CHANGED})), 20_000_000, policy)
    30
    >>> depth(Prefix("datacite", "x.y", "10.5061", 4), 20_000_000, policy)
    4
    """
    size = sample_size(prefix.dois, largest, policy.sample_min, policy.sample_max)
    if prefix.signals:
        size = max(size, min(prefix.dois, policy.changed_dois))
    return size


def target_days(policy: Policy) -> float:
    """The age at which a prefix is due for its refresh: refresh_days less recheck_days (at least half of
    refresh_days), so that the new and signalled prefixes, which go first, delay no refresh past refresh_days.

    >>> target_days(Policy(refresh_days=7, recheck_days=1, sample_min=10, sample_max=100, changed_dois=30))
    6
    >>> target_days(Policy(refresh_days=2, recheck_days=3, sample_min=10, sample_max=100, changed_dois=30))
    1.0
    """
    return max(policy.refresh_days - policy.recheck_days, policy.refresh_days / 2)


def paced(ages_days: Sequence[float], target: float, refreshing: int = 0) -> int:
    """How many of the sampled prefixes, ages stalest first, a slice refreshes: as many as are older than an even
    spread of n refreshes over the target age would have them (n * (1 - age / target) at most of age `age` or
    more). So one is taken when due, and prefixes sampled together (a run's start, a listing's new prefixes) come
    back a few each slice rather than all at once at their target age. `refreshing`: prefixes whose refresh is under
    way, not in `ages_days`, counted in n as just sampled (left out, the spread of the others looks too stale).

    >>> paced([1, 1, 1, 1], target=4), paced([4, 3, 2, 1], target=4), paced([3, 2, 1, 0], target=4), paced([], 4)
    (1, 1, 0, 0)
    >>> paced([4, 4], target=4), paced([9, 0.5], target=4)
    (2, 1)
    >>> paced([3, 2], target=4), paced([3, 2], target=4, refreshing=2)
    (1, 0)
    """
    n = len(ages_days) + refreshing
    excess = (i + 1 - n * (1 - min(age, target) / target) for i, age in enumerate(ages_days))
    return max(0, max((math.floor(e + 1e-9) for e in excess), default=0))


def plan(
    prefixes: Iterable[Prefix],
    now: datetime,
    policy: Policy,
    budget: Budget,
    slice: timedelta,
    carry: float = 0.0,
    refreshing: int = 0,
) -> Plan:
    """What to sample in the slice [now, now + slice): picks in priority order while the slice's share of the daily
    budget, less the previous plan's `carry` (its overdraft), lasts. The last pick may overdraw it, and the next
    slices pay that back, so no prefix waits behind a cheaper one and any run of slices spends at most its share
    of the budget plus one pick. A stale prefix is due at its target age (`target_days`), and earlier when `paced`
    says so, so that prefixes first sampled together spread their refreshes over the target age instead of all
    coming due, and taking the crawl's days, at once. `refreshing`: known prefixes left out of `prefixes` because
    their refresh is under way (landing.core.continuous.schedule.plannable), which the pace counts."""
    _check(policy, budget, slice)
    known = list(prefixes)
    now = _utc(now)
    end = now + slice
    largest = max((p.dois for p in known), default=0)
    per_doi = budget.requests_per_doi
    # Sized once per distinct DOI count: a plan covers every known prefix each slice.
    counts = Counter(p.dois for p in known)
    full = sum(
        n * request_cost(sample_size(dois, largest, policy.sample_min, policy.sample_max), per_doi)
        for dois, n in counts.items()
    )
    keeps = 0.0 if full <= 0 else (full / budget.requests_per_day if budget.requests_per_day > 0 else math.inf)

    recheck, due = timedelta(days=policy.recheck_days), end - timedelta(days=target_days(policy))
    registry, never, signalled, rest = [], [], [], []
    for p in known:  # one pass
        if p.registry:
            registry.append(p)
        elif p.sampled is None:
            never.append(p)
        elif p.signals and p.sampled + recheck <= end:
            signalled.append(p)
        else:
            rest.append(p)
    never.sort(key=lambda p: (-p.dois, p.ra, p.prefix))
    order = [(p, REGISTRY) for p in sorted(registry, key=lambda p: (p.ra, p.prefix))]
    order += [(p, NEVER_SAMPLED) for p in never]
    order += [(p, SIGNALLED) for p in _stalest(signalled)]
    stale = _stalest(rest)
    share = paced([(now - p.sampled) / DAY for p in stale], target_days(policy), refreshing)

    order += [(p, STALE) for n, p in enumerate(stale) if n < share or p.sampled <= due]

    remaining = budget.requests_per_day * (slice / DAY) + min(0.0, carry)
    picks: list[Pick] = []
    for p, reason in order:
        if remaining <= 0:
            break
        if reason == REGISTRY:  # exactly the DOIs the registries moved, no sample query
            dois, cost = p.registry, p.registry * per_doi
        else:
            dois = depth(p, largest, policy)
            cost = request_cost(dois, per_doi)
        picks.append(Pick(p, dois, reason, cost))
        remaining -= cost
    used = sum(pick.requests for pick in picks)
    target = target_days(policy)
    return Plan(tuple(picks), used, min(0.0, remaining), full / target, keeps, keeps <= target)


def ages(prefixes: Iterable[Prefix], now: datetime) -> dict:
    """Days since each sampled prefix was last sampled, as an operator reads them: p50, p95 and max (nearest rank;
    None when nothing was sampled), and how many prefixes were never sampled.

    >>> at = datetime(2026, 11, 30, tzinfo=UTC)
    >>> ps = [Prefix("crossref", "1", f"10.{i}", 5, at - timedelta(days=i)) for i in range(1, 21)]
    >>> ages(ps + [Prefix("crossref", "2", "10.99", 5)], at)
    {'p50': 10.0, 'p95': 19.0, 'max': 20.0, 'never': 1}
    """
    now, never, stamps = _utc(now), 0, []
    for p in prefixes:
        if p.sampled is None:
            never += 1
        else:
            stamps.append(p.sampled)
    stamps.sort()  # the oldest first: only the three ranks' ages are computed (every known prefix, each slice)

    def rank(q: float) -> float | None:
        return (now - stamps[len(stamps) - max(1, math.ceil(q * len(stamps)))]) / DAY if stamps else None

    return {"p50": rank(0.5), "p95": rank(0.95), "max": rank(1.0), "never": never}


def _stalest(found: Iterable[Prefix]) -> list[Prefix]:
    return sorted(found, key=lambda p: (p.sampled, p.ra, p.prefix))


def _utc(moment: datetime) -> datetime:
    """An aware UTC datetime; a naive one is taken as UTC already (as artifact versions are)."""
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


def _positive(**values: float) -> None:
    for name, value in values.items():
        if not value > 0:
            raise ValueError(f"{name} must be more than 0, not {value!r}")


def _check(policy: Policy, budget: Budget, slice: timedelta) -> None:
    _positive(
        refresh_days=policy.refresh_days,
        recheck_days=policy.recheck_days,
        requests_per_doi=budget.requests_per_doi,
        slice=slice.total_seconds(),
    )
    if budget.requests_per_day < 0:
        raise ValueError(f"requests_per_day must be 0 or more, not {budget.requests_per_day!r}")
    if not 0 < policy.sample_min <= policy.sample_max or policy.changed_dois < 0:
        raise ValueError(
            f"need 0 < sample_min <= sample_max and changed_dois >= 0, not sample_min={policy.sample_min!r}, "
            f"sample_max={policy.sample_max!r}, changed_dois={policy.changed_dois!r}"
        )


def prefix_id(ra: str, prefix: str) -> str:
    """The id of a known prefix's document (kind `prefix`).

    >>> prefix_id("crossref", "10.1234")
    'crossref 10.1234'
    """
    return f"{ra} {prefix}"


def prefix_doc(prefix: Prefix, listed: str, changed: str | None = None, panel: Sequence[str] = ()) -> dict:
    """A known prefix as the store keeps it (kind `prefix`, id `prefix_id`): `listed` and `changed` are stamps
    (when first listed; the last sample that signalled), `panel` the DOIs each refresh visits again.

    >>> doc = prefix_doc(Prefix("crossref", "78", "10.1016", 500, datetime(2026, 11, 2, tzinfo=UTC)), "2026-11-01T00:00:00Z")
    >>> doc["prefix/sampled"], doc["prefix/signals"], prefix_of(doc) == Prefix("crossref", "78", "10.1016", 500,
    ...     datetime(2026, 11, 2, tzinfo=UTC))
    ('2026-11-02T00:00:00Z', [], True)
    """
    return {
        "prefix/ra": prefix.ra,
        "prefix/owner": prefix.owner,
        "prefix/prefix": prefix.prefix,
        "prefix/dois": prefix.dois,
        "prefix/listed": listed,
        "prefix/sampled": None if prefix.sampled is None else _utc(prefix.sampled).strftime(STAMP),
        "prefix/signals": sorted(prefix.signals),
        "prefix/changed": changed,
        "prefix/panel": list(panel),
    }


def prefix_of(doc: dict) -> Prefix:
    """The Prefix a `prefix` document holds (`prefix_doc`'s inverse)."""
    sampled, found = doc.get("prefix/sampled"), doc.get("prefix/signals")
    # Interned, and one empty set for all: continuous mode keeps a Prefix per known prefix (a new empty frozenset
    # each call would be one more object per prefix).
    return Prefix(
        sys.intern(doc["prefix/ra"]),
        sys.intern(doc["prefix/owner"]),
        doc["prefix/prefix"],
        int(doc.get("prefix/dois") or 0),
        None if sampled is None else moment(sampled),
        frozenset(found) if found else NO_SIGNALS,
        len(doc.get("prefix/registry-dois") or ()),
    )


def moment(stamp: str) -> datetime:
    """A stored stamp (`YYYY-MM-DDTHH:MM:SSZ`, landing.clock's) as an aware UTC datetime.

    >>> moment("2026-11-26T01:00:00Z")
    datetime.datetime(2026, 11, 26, 1, 0, tzinfo=datetime.timezone.utc)
    """
    # fromisoformat, not strptime: a plan reads one per known prefix each slice, and strptime costs far more.
    return _utc(datetime.fromisoformat(stamp))
