"""The domain-decision-structure artifact: its one model (`Decisions`), its one reader (`Decisions.read`) and its
one writer (`Decisions.to_json`), and what the matcher asks of it: which prefixes a domain is trusted for.

Shape (this project's artifacts and the original Percolator's resources/artifacts file alike):
{"domains": [...], "prefixes": [...], "domains-prefixes": {domain: {prefix: {"domain-recognised": bool,
"domain-confirmed": bool}}}}; this project's cells add "visits" ({class: DOIs}), "first-seen" and "last-seen".
"""

import hashlib
import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from types import MappingProxyType

from landing.core.matching.exclusions import excluded

_EMPTY = MappingProxyType({})


@dataclass(frozen=True)
class Decisions:
    """domains/prefixes: every one named; recognised/confirmed: (domain, prefix) pairs; all lower case."""

    domains: frozenset = frozenset()
    prefixes: frozenset = frozenset()
    recognised: frozenset = frozenset()
    confirmed: frozenset = frozenset()
    # domain -> its prefixes, so a lookup does not scan every pair.
    by_domain: MappingProxyType = field(default_factory=lambda: _EMPTY, compare=False, repr=False)
    # "sha256:" and the artifact's first 16 hex digits: the version a match names; "" without an artifact.
    version: str = field(default="", compare=False)
    # (domain, prefix) -> when a DOI of the prefix last led there (ISO 8601, UTC), for cells that say.
    last_seen: MappingProxyType = field(default_factory=lambda: _EMPTY, compare=False, repr=False)
    # (domain, prefix) -> when a DOI of the prefix first led there, for cells that say.
    first_seen: MappingProxyType = field(default_factory=lambda: _EMPTY, compare=False, repr=False)
    # (domain, prefix) -> {class: DOIs}: how the visits of the prefix's DOIs that led there ended, for cells that say.
    visits: MappingProxyType = field(default_factory=lambda: _EMPTY, compare=False, repr=False)

    @classmethod
    def read(cls, text: str) -> "Decisions":
        """Decisions from the artifact's JSON text; ValueError saying what is wrong with anything else."""
        try:
            data = json.loads(text)
        except json.JSONDecodeError as error:
            raise ValueError(f"domain-decision-structure: not JSON ({error})") from None
        except RecursionError:  # arrays or objects nested thousands deep: no artifact is, a corrupt file may be
            raise ValueError("domain-decision-structure: nested too deeply to read") from None
        return _of(data, text)

    def to_json(self) -> str:
        """The artifact's text: sorted, deterministic, each pair with its flags and what else its cell knows."""
        table = {}
        for domain, prefixes in self.by_domain.items():
            row = table[domain] = {}
            for prefix in prefixes:
                pair = (domain, prefix)
                cell = row[prefix] = {
                    "domain-recognised": pair in self.recognised,
                    "domain-confirmed": pair in self.confirmed,
                }
                if self.visits.get(pair):
                    cell["visits"] = dict(self.visits[pair])
                for key, seen in (("first-seen", self.first_seen), ("last-seen", self.last_seen)):
                    if pair in seen:
                        cell[key] = seen[pair]
        found = {"domains": sorted(self.domains), "prefixes": sorted(self.prefixes), "domains-prefixes": table}
        return json.dumps(found, indent=2, sort_keys=True) + "\n"

    def ends(self) -> frozenset:
        """(domain, prefix, class, DOIs) of every pair's visits."""
        return frozenset(
            (domain, prefix, end, n)
            for domain, prefixes in self.by_domain.items()
            for prefix in prefixes
            for end, n in self.visits.get((domain, prefix), _EMPTY).items()
        )


def made(
    prefixes: Iterable[str],
    recognised: Iterable[tuple[str, str]],
    confirmed: Iterable[tuple[str, str]],
    ends: Iterable[tuple[str, str, str, int]] = (),
    seen: Iterable[tuple[str, str, str, str]] = (),
) -> Decisions:
    """Decisions of these pairs (domain, prefix), with the visit ends (domain, prefix, class, DOIs) and the seen
    spans (prefix, domain, first, last) of the pairs they name; the domains are those of the pairs.

    >>> made(["10.1"], [("a.example", "10.1")], []).to_json().count('"domain-recognised": true')
    1
    """
    recognised, confirmed = frozenset(recognised), frozenset(confirmed)
    by_domain: dict[str, set] = {}
    for domain, prefix in recognised | confirmed:
        by_domain.setdefault(domain, set()).add(prefix)
    visits: dict[tuple[str, str], dict] = {}
    for domain, prefix, end, n in ends:
        if prefix in by_domain.get(domain, ()):
            visits.setdefault((domain, prefix), {})[end] = n
    first, last = {}, {}
    for prefix, domain, first_seen, last_seen in seen:
        if prefix in by_domain.get(domain, ()):
            first[(domain, prefix)], last[(domain, prefix)] = first_seen, last_seen
    return Decisions(
        frozenset(by_domain),
        frozenset(prefixes),
        recognised,
        confirmed,
        MappingProxyType({d: frozenset(ps) for d, ps in by_domain.items()}),
        last_seen=MappingProxyType(last),
        first_seen=MappingProxyType(first),
        visits=MappingProxyType({pair: MappingProxyType(v) for pair, v in visits.items()}),
    )


def _strings(data: dict, key: str) -> list[str]:
    values = data.get(key, [])
    if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
        raise ValueError(f'domain-decision-structure: "{key}" must be a list of strings')
    return [v.strip().lower() for v in values]


def _flag(value, where: str) -> bool:
    # JSON booleans as written by both producers; 0/1 tolerated from hand-made or other-language exports.
    if type(value) in (bool, int) and value in (0, 1):
        return bool(value)
    raise ValueError(f"domain-decision-structure: {where} must be true/false (or 1/0), not {value!r}")


def _visits(value, where: str) -> dict:
    # The original artifact and this project's older versions have none.
    visits = value or {}
    if not isinstance(visits, dict) or not all(type(n) is int and n >= 0 for n in visits.values()):
        raise ValueError(f'domain-decision-structure: {where}["visits"] must map classes to counts')
    return visits


def _of(data, text: str) -> Decisions:
    """Decisions from the artifact's parsed JSON (`text`, its source, names the version)."""
    if not isinstance(data, dict) or not isinstance(data.get("domains-prefixes"), dict):
        raise ValueError(
            'domain-decision-structure: expected an object with a "domains-prefixes" object '
            '(domain -> prefix -> {"domain-recognised", "domain-confirmed"})'
        )
    recognised, confirmed, by_domain, first_seen, last_seen, visits = set(), set(), {}, {}, {}, {}
    for domain, row in data["domains-prefixes"].items():
        if not isinstance(row, dict):
            raise ValueError(f'domain-decision-structure: "domains-prefixes"["{domain}"] must be an object')
        domain = domain.strip().lower()
        by_domain.setdefault(domain, set())
        for prefix, cell in row.items():
            where = f'"domains-prefixes"["{domain}"]["{prefix}"]'
            if not isinstance(cell, dict):
                raise ValueError(f"domain-decision-structure: {where} must be an object")
            prefix = prefix.strip().lower()
            pair = (domain, prefix)
            by_domain[domain].add(prefix)
            if _flag(cell.get("domain-recognised", False), f'{where}["domain-recognised"]'):
                recognised.add(pair)
            if _flag(cell.get("domain-confirmed", False), f'{where}["domain-confirmed"]'):
                confirmed.add(pair)
            ends = _visits(cell.get("visits"), where)
            if ends:
                visits[pair] = MappingProxyType({**visits.get(pair, {}), **{str(k): n for k, n in ends.items()}})
            for key, seen in (("first-seen", first_seen), ("last-seen", last_seen)):
                if isinstance(cell.get(key), str):
                    seen[pair] = cell[key]
    # The original's test artifact names domains and prefixes in the table that its lists leave out: take both.
    domains = set(_strings(data, "domains")) | set(by_domain)
    prefixes = set(_strings(data, "prefixes")) | {p for ps in by_domain.values() for p in ps}
    return Decisions(
        frozenset(domains),
        frozenset(prefixes),
        frozenset(recognised),
        frozenset(confirmed),
        MappingProxyType({d: frozenset(ps) for d, ps in by_domain.items()}),
        "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()[:16],
        MappingProxyType(last_seen),
        MappingProxyType(first_seen),
        MappingProxyType(visits),
    )


def excluding(decisions: Decisions, exclusions: frozenset[str]) -> Decisions:
    """The decisions without the excluded domains (landing.core.matching.exclusions): an excluded domain vouches for no
    prefix, whoever made the artifact and whenever the domain was excluded."""
    return _keeping(decisions, lambda domain, prefix: not excluded(domain, exclusions))


def seen_since(decisions: Decisions, day: str) -> Decisions:
    """The decisions without the pairs last seen before day (YYYY-MM-DD; last-seen times compare with it as ISO
    strings do): the artifact is additive, so a site that
    moved keeps its old domain; a pair whose cell names no day is kept. A domain left with no pair is dropped."""
    return _keeping(decisions, lambda domain, prefix: decisions.last_seen.get((domain, prefix), day) >= day)


def _keeping(decisions: Decisions, keep) -> Decisions:
    """The decisions with only the (domain, prefix) pairs keep(domain, prefix) holds, and the domains that still
    have one (or never had any)."""
    by_domain = {
        domain: frozenset(p for p in prefixes if keep(domain, p)) for domain, prefixes in decisions.by_domain.items()
    }
    by_domain = {
        domain: prefixes for domain, prefixes in by_domain.items() if prefixes or not decisions.by_domain[domain]
    }
    domains = frozenset(
        d for d in decisions.domains if d in by_domain or (d not in decisions.by_domain and keep(d, ""))
    )
    return Decisions(
        domains,
        decisions.prefixes,
        frozenset(pair for pair in decisions.recognised if keep(*pair)),
        frozenset(pair for pair in decisions.confirmed if keep(*pair)),
        MappingProxyType(by_domain),
        decisions.version,
        decisions.last_seen,
        decisions.first_seen,
        decisions.visits,
    )


def prefixes_on(decisions: Decisions, domain: str | None) -> set[str]:
    """The prefixes the artifact records on a domain (recognised or confirmed), empty if none."""
    return set(decisions.by_domain.get((domain or "").lower(), ()))


def domain_verification(decisions: Decisions, domain: str | None, prefix: str, allow_domain_only: bool) -> str | None:
    """The best domain-level verification the artifact gives (domain, prefix), or None.

    Domains are compared exactly, lower case: www.x.org and x.org can be different servers or platforms,
    and the artifact records the host the sampler's pages were actually served from.
    """
    pair = ((domain or "").lower(), prefix.strip().lower())
    if pair in decisions.confirmed:
        return "confirmed-domain-prefix"
    if pair in decisions.recognised:
        return "recognised-domain-prefix"
    if allow_domain_only and pair[0] in decisions.domains:
        return "recognised-domain"
    return None
