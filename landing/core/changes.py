"""What changed between two artifact versions, per prefix and per domain. Artifacts in, a JSON-ready dict out.

The files are additive, so an entry rarely leaves them; what a reader wants to know is what a newer version saw
that an older one did not, and what it no longer saw. A pair (prefix, domain) *appeared* with each label (good,
bad, recognised, confirmed) the newer version has and the older lacks, and *disappeared* with each it lost (an
exclusion, or files from elsewhere). A pair in both *went unseen* when the newer version saw its prefix again,
later, but not there: its last-seen stayed where it was while another pair of the prefix moved on. That is
how a site that moved to a new domain shows: the new domain appears, the old one goes unseen.
"""

from collections.abc import Iterable

from landing.core.artifacts import Artifacts
from landing.core.labels import printable
from landing.core.names import labelled

LABELS = ("good", "bad", "recognised", "confirmed")


def _labels(a: Artifacts) -> dict[tuple[str, str], set[str]]:
    """(prefix, domain) -> its labels in a."""
    labels: dict[tuple[str, str], set[str]] = {}
    for label, pairs in (
        ("good", ((p, d) for p, d, _ in a.good)),
        ("bad", ((p, d) for p, d, _ in a.bad)),
        ("recognised", ((p, d) for d, p in a.recognised)),
        ("confirmed", ((p, d) for d, p in a.confirmed)),
    ):
        for pair in pairs:
            labels.setdefault(pair, set()).add(label)
    return labels


def _last_seen(a: Artifacts) -> dict[tuple[str, str], str]:
    return {(prefix, domain): last for prefix, domain, _, last in a.seen if domain}


def changes(old: Artifacts, new: Artifacts) -> dict:
    """{"pairs": [{prefix, domain, appeared, disappeared, unseen-since}], "prefixes": {appeared, disappeared}},
    each list sorted; a pair is listed only when something changed."""
    before, after = _labels(old), _labels(new)
    seen_before, seen_after = _last_seen(old), _last_seen(new)
    latest: dict[str, str] = {}  # prefix -> when the newer version last saw any of its pairs
    for (prefix, _), day in seen_after.items():
        latest[prefix] = max(latest.get(prefix, ""), day)
    rows = []
    for pair in sorted(before.keys() | after.keys()):
        appeared = sorted(after.get(pair, set()) - before.get(pair, set()), key=LABELS.index)
        disappeared = sorted(before.get(pair, set()) - after.get(pair, set()), key=LABELS.index)
        last = seen_after.get(pair)
        unseen = (
            pair in before
            and pair in after
            and last
            and last == seen_before.get(pair)
            and last < latest.get(pair[0], "")
        )
        if appeared or disappeared or unseen:
            rows.append(
                {
                    "prefix": pair[0],
                    "domain": pair[1],
                    "appeared": appeared,
                    "disappeared": disappeared,
                    "unseen-since": last if unseen else None,
                }
            )
    old_prefixes, new_prefixes = {p for p, _ in old.prefixes}, {p for p, _ in new.prefixes}
    return {
        "pairs": rows,
        "prefixes": {
            "appeared": sorted(new_prefixes - old_prefixes),
            "disappeared": sorted(old_prefixes - new_prefixes),
        },
    }


def prefix_owners(members: Iterable[dict], wanted: set[str]) -> dict[str, tuple[str, str | None]]:
    """{prefix: (member, its name)} for the prefixes in `wanted`, from a version's member objects (members.jsonl.gz:
    `member`, `name`, `prefixes` [{`prefix`, `dois`}]); a prefix under several members is the one's with most DOIs.

    >>> prefix_owners([{"member": "crossref/7", "name": "P", "prefixes": [{"prefix": "10.1", "dois": 2}]},
    ...     {"member": "crossref/8", "name": None, "prefixes": [{"prefix": "10.1", "dois": 3}]}], {"10.1", "10.2"})
    {'10.1': ('crossref/8', None)}
    """
    best: dict[str, tuple[int, str, str | None]] = {}
    for member in members:
        name = member.get("name") if isinstance(member.get("name"), str) else None  # a file from elsewhere: anything
        prefixes = member.get("prefixes") if isinstance(member.get("prefixes"), list) else ()
        for entry in prefixes:
            prefix = entry.get("prefix") if isinstance(entry, dict) else None
            if not isinstance(prefix, str) or prefix not in wanted:
                continue
            dois = entry["dois"] if isinstance(entry.get("dois"), int) else 0
            held = best.get(prefix)
            if held is None or (-dois, member["member"]) < (-held[0], held[1]):
                best[prefix] = (dois, member["member"], name)
    return {prefix: (member, name) for prefix, (_, member, name) in best.items()}


def render_changes(found: dict, owners: dict[str, tuple[str, str | None]] | None = None) -> str:
    """The changes as text: new and lost prefixes, then each prefix's domains, then each domain's prefixes; each
    prefix with its owner, `name (member)`, where `owners` ({prefix: (member, name)}) knows it. A label holding a
    control or bidi character is shown escaped (a file from elsewhere may hold anything)."""
    owners = owners or {}

    def prefix(name: str) -> str:
        owner = owners.get(name)
        return printable(name) + (f"  {labelled(*owner)}" if owner else "")

    lines = [f"prefixes: +{len(found['prefixes']['appeared'])} -{len(found['prefixes']['disappeared'])}"]
    lines += [f"  + {prefix(name)}" for name in found["prefixes"]["appeared"]]
    lines += [f"  - {prefix(name)}" for name in found["prefixes"]["disappeared"]]
    for title, key, other in (("by prefix", "prefix", "domain"), ("by domain", "domain", "prefix")):
        lines.append(f"{title}:")
        grouped: dict[str, list[dict]] = {}  # grouped once: a full run's diff has tens of thousands of pairs
        for row in found["pairs"]:
            grouped.setdefault(row[key], []).append(row)
        shown = prefix if key == "prefix" else printable
        for name in sorted(grouped):
            lines.append(f"  {shown(name) or '(no domain)'}")
            for row in sorted(grouped[name], key=lambda r: r[other]):
                said = printable(_said(row))
                if other == "prefix" and row["prefix"] in owners:
                    said += f"  {labelled(*owners[row['prefix']])}"
                lines.append(f"    {printable(row[other]) or '(no domain)'}  {said}")
    return "\n".join(lines) + "\n"


def _said(row: dict) -> str:
    parts = [f"+{label}" for label in row["appeared"]] + [f"-{label}" for label in row["disappeared"]]
    if row["unseen-since"]:
        parts.append(f"not seen since {row['unseen-since']}")
    return " ".join(parts)
