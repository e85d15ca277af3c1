"""What changed between two artifact versions, per prefix and per domain. Artifacts in, a JSON-ready dict out.

The files are additive, so an entry rarely leaves them; what a reader wants to know is what a newer version saw
that an older one did not, and what it no longer saw. A pair (prefix, domain) *appeared* with each label (good,
bad, recognised, confirmed) the newer version has and the older lacks, and *disappeared* with each it lost (an
exclusion, or files from elsewhere). A pair in both *went unseen* when the newer version saw its prefix again,
later, but not there: its last-seen stayed where it was while another pair of the prefix moved on. That is
how a site that moved to a new domain shows: the new domain appears, the old one goes unseen.

Sampling alone leaves pairs unseen: a pair that went unseen is *news* only when the prefix's DOIs sampled between
the two versions would very likely have met it again had it stayed (`missed`, Bonferroni over the version's unseen
pairs, landing.core.publishing.proportions), and never on fewer than MIN_DRAWS of them. A label that appeared or disappeared is always news. Counts shown to people are
of news; the diff lists everything, marked.
"""

from collections.abc import Iterable

from landing.core.publishing.artifact_sets import Artifacts
from landing.core.publishing.proportions import beyond_noise, missed
from landing.core.registries.names import labelled
from landing.core.web.labels import printable

LABELS = ("good", "bad", "recognised", "confirmed")
MIN_DRAWS = 5  # DOIs of a prefix sampled between two versions below which an unseen pair is never news


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


def _dois(a: Artifacts) -> tuple[dict[tuple[str, str], int], dict[str, int]]:
    """DOIs whose visits ended on each (prefix, domain), and on any domain of each prefix, from a's visit ends."""
    pairs: dict[tuple[str, str], int] = {}
    prefixes: dict[str, int] = {}
    for domain, prefix, _, n in a.ends:
        pairs[(prefix, domain)] = pairs.get((prefix, domain), 0) + n
        prefixes[prefix] = prefixes.get(prefix, 0) + n
    return pairs, prefixes


def unseen_odds(old: Artifacts, new: Artifacts, pairs: Iterable[tuple[str, str]]) -> dict[tuple[str, str], tuple]:
    """(the chance that each pair went unseen by sampling alone, the prefix's draws): the prefix's DOIs counted in
    `new` beyond `old`'s, drawn at random, all missing a pair that held its share of the prefix's DOIs in `old`
    (a chance of 1.0 when it held none)."""
    (held, before), (_, after) = _dois(old), _dois(new)
    odds = {}
    for prefix, domain in pairs:
        of, draws = before.get(prefix, 0), after.get(prefix, 0) - before.get(prefix, 0)
        odds[(prefix, domain)] = (missed(held.get((prefix, domain), 0) / of if of else 0.0, draws), draws)
    return odds


def news(found: dict) -> list[dict]:
    """The pairs of a changes dict that are news: those marked so (a file written before the mark: every pair).

    >>> len(news({"pairs": [{"news": True}, {"news": False}, {}]}))
    2
    """
    return [row for row in found.get("pairs", ()) if row.get("news", True)]


def changes(old: Artifacts, new: Artifacts) -> dict:
    """{"pairs": [{prefix, domain, appeared, disappeared, unseen-since, news}], "prefixes": {appeared,
    disappeared}}, each list sorted; a pair is listed only when something changed, `news` when it passes the rule
    (an unseen pair also carries `missed`, the chance that sampling alone left it unseen)."""
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
    unseen = [(row["prefix"], row["domain"]) for row in rows if row["unseen-since"]]
    odds = unseen_odds(old, new, unseen)
    for row in rows:
        row["news"] = bool(row["appeared"] or row["disappeared"])
        if row["unseen-since"]:
            chance, draws = odds[(row["prefix"], row["domain"])]
            row["missed"] = round(chance, 6)
            row["news"] = row["news"] or (draws >= MIN_DRAWS and beyond_noise(chance, len(unseen)))
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
    counted = len(news(found))
    lines.append(f"pairs changed: {counted:,}, and {len(found['pairs']) - counted:,} unseen likely by sampling alone")
    return "\n".join(lines) + "\n"


def _said(row: dict) -> str:
    parts = [f"+{label}" for label in row["appeared"]] + [f"-{label}" for label in row["disappeared"]]
    if row["unseen-since"]:
        parts.append(f"not seen since {row['unseen-since']}")
    if not row.get("news", True):
        parts.append("(likely sampling: not counted)")
    return " ".join(parts)
