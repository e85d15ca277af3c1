"""The domain-decision-structure artifact's one reader (the matcher's and artifacts.parse's): which prefixes a
domain is trusted for.

Shape (this project's artifacts.render and the original Percolator's resources/artifacts file alike):
{"domains": [...], "prefixes": [...], "domains-prefixes": {domain: {prefix: {"domain-recognised": bool,
"domain-confirmed": bool}}}}.
"""

import hashlib
import json
from dataclasses import dataclass, field
from types import MappingProxyType

from landing.core.exclusions import excluded

_FLAGS = ("domain-recognised", "domain-confirmed")


@dataclass(frozen=True)
class Decisions:
    """domains/prefixes: every one named; recognised/confirmed: (domain, prefix) pairs; all lower case."""

    domains: frozenset = frozenset()
    prefixes: frozenset = frozenset()
    recognised: frozenset = frozenset()
    confirmed: frozenset = frozenset()
    # domain -> its prefixes, so a lookup does not scan every pair (the original artifact was ~3 MB).
    by_domain: MappingProxyType = field(default_factory=lambda: MappingProxyType({}), compare=False, repr=False)
    # "sha256:" and the artifact's first 16 hex digits: the version a match names; "" without an artifact.
    version: str = field(default="", compare=False)
    # (domain, prefix) -> when a DOI of the prefix last led there (ISO 8601, UTC), for cells that say.
    last_seen: MappingProxyType = field(default_factory=lambda: MappingProxyType({}), compare=False, repr=False)


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


def load_decisions(text: str) -> Decisions:
    """Decisions from the artifact's JSON text; ValueError saying what is wrong with anything else."""
    return decisions_of(decisions_json(text), text)


def decisions_json(text: str):
    """The artifact's JSON, parsed; ValueError when it is not JSON (decisions_of checks its shape)."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise ValueError(f"domain-decision-structure: not JSON ({error})") from None
    except RecursionError:  # arrays or objects nested thousands deep: no artifact is, a corrupt file may be
        raise ValueError("domain-decision-structure: nested too deeply to read") from None


def decisions_of(data, text: str) -> Decisions:
    """Decisions from the artifact's parsed JSON (`text`, its source, names the version); ValueError saying what
    is wrong with anything else."""
    if not isinstance(data, dict) or not isinstance(data.get("domains-prefixes"), dict):
        raise ValueError(
            'domain-decision-structure: expected an object with a "domains-prefixes" object '
            '(domain -> prefix -> {"domain-recognised", "domain-confirmed"})'
        )
    recognised, confirmed, by_domain, last_seen = set(), set(), {}, {}
    for domain, row in data["domains-prefixes"].items():
        if not isinstance(row, dict):
            raise ValueError(f'domain-decision-structure: "domains-prefixes"["{domain}"] must be an object')
        domain = domain.strip().lower()
        by_domain.setdefault(domain, set())
        for prefix, flags in row.items():
            where = f'"domains-prefixes"["{domain}"]["{prefix}"]'
            if not isinstance(flags, dict):
                raise ValueError(f"domain-decision-structure: {where} must be an object")
            prefix = prefix.strip().lower()
            by_domain[domain].add(prefix)
            if _flag(flags.get("domain-recognised", False), f'{where}["domain-recognised"]'):
                recognised.add((domain, prefix))
            if _flag(flags.get("domain-confirmed", False), f'{where}["domain-confirmed"]'):
                confirmed.add((domain, prefix))
            if isinstance(flags.get("last-seen"), str):
                last_seen[(domain, prefix)] = flags["last-seen"]
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
    )


def excluding(decisions: Decisions, exclusions: frozenset[str]) -> Decisions:
    """The decisions without the excluded domains (landing.core.exclusions): an artifact made elsewhere, or before
    a domain was excluded, vouches for nothing there."""
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
