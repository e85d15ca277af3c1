"""Publisher alerts: what a member should fix, and what got worse since the previous version. A member's object of
members.jsonl.gz (landing.core.publishing.member_figures) now and before, and the version's changes, in; an alert dict out.

The summary is one paragraph a person can send as it is; `csv_rows` gives a mail merge's lines. What could not be
read is told apart from what was read and lacks or misstates the DOI, each with an example and how to fix it. A fall
in the share of correct pages is worse only beyond sampling noise (docs/artifacts.md "Alerts").
"""

from collections.abc import Iterable, Iterator

from landing.core.publishing.proportions import beyond_noise, fell, interval
from landing.core.publishing.spreadsheet import cell
from landing.core.web.labels import printable

SHARE_DROP = 0.05  # a fall smaller than this is no news to a publisher, however sure
MIN_READ = 20  # pages read, now and before, below which a share's fall is too few DOIs to tell
META_TAG = (
    '<meta name="citation_doi" content="{doi}">'  # the tag an alert asks for (landing.core.pages.analysis reads it)
)
# How to fix a failure class, where the publisher can: {agent} is the crawler's user agent.
HOW = {
    "robots": 'allow the user agent "{agent}" in robots.txt',
    "redirect-loop": "make the redirect end on the landing page",
    "too-many-redirects": "make the redirect end on the landing page in fewer hops",
    "challenge": "serve landing pages without a bot challenge",
    "js-required": "serve landing pages that need no script to show",
    "cookie-required": "serve landing pages that need no cookie",
    "http-4xx": "make the DOI's URL answer with the landing page",
    "not-html": "make the DOI's URL answer with an HTML landing page",
}
# What a publisher whose site moved should make sure of: old links keep working, and the DOIs lead to the new site.
MOVED = "Keep each old address redirecting to its new landing page, and register the DOIs' new URLs."
AGENT = "landing"  # named when the caller does not give the crawler's USER_AGENT
LISTED = 5  # items of one kind named in a summary; the rest are counted
CSV_FIELDS = ("member", "name", "subject", "body")
_AGENCY = {"crossref": "Crossref member", "datacite": "DataCite client"}


def moves(changes: dict | None) -> dict[str, dict]:
    """prefix -> {"from": [domains that went unseen], "to": [domains that appeared]}, for the prefixes of a version's
    changes (changes.json) where a domain appeared while another went unseen as news (landing.core.publishing.changes): a site
    that moved.

    >>> pairs = [{"prefix": "10.1", "domain": "new.example", "appeared": ["recognised"], "unseen-since": None},
    ...          {"prefix": "10.1", "domain": "old.example", "appeared": [], "unseen-since": "2030-01-01"},
    ...          {"prefix": "10.2", "domain": "more.example", "appeared": ["recognised"], "unseen-since": None}]
    >>> moves({"pairs": pairs})
    {'10.1': {'from': ['old.example'], 'to': ['new.example']}}
    """
    found: dict[str, tuple[list, list]] = {}
    for row in (changes or {}).get("pairs", ()):
        went, came = found.setdefault(row["prefix"], ([], []))
        if row.get("unseen-since") and row.get("news", True):  # unseen likely by sampling alone: not a move
            went.append(row["domain"])
        if "recognised" in row.get("appeared", ()):
            came.append(row["domain"])
    return {
        prefix: {"from": sorted(went), "to": sorted(came)} for prefix, (went, came) in found.items() if went and came
    }


def to_fix(member: dict) -> dict:
    """What a member's figures say it should fix: prefixes none of whose pages could be read, prefixes whose pages
    were read and none states its DOI, and the domains whose pages lack the DOI's meta tags, state another DOI, or
    cannot be read; each with an example DOI where one is known."""
    domains = member.get("domains", [])
    prefixes = member.get("prefixes", [])
    return {
        "prefixes-unread": [
            {"prefix": p["prefix"], "dois": p["dois"], "errors": p["errors"], "example": _failed_under(member, p)}
            for p in prefixes
            if not p.get("read") and p.get("failed")
        ],
        "prefixes-without-good-domain": [p["prefix"] for p in prefixes if p.get("read") and not p["good-domains"]],
        "domains-missing-doi": [
            {
                "domain": d["domain"],
                "dois": d["dois"],
                "missing": d["correctness"]["missing"],
                "example": d.get("missing-example"),
            }
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
            {"domain": d["domain"], "dois": d["dois"], "errors": d["errors"], "example": d.get("failed-example")}
            for d in domains
            if d["failed"]
        ],
    }


def _failed_under(member: dict, prefix: dict) -> dict | None:
    """A failed visit of a DOI under the prefix, {doi, url, error}, from the member's domains or its examples.

    >>> _failed_under({"examples": [{"doi": "10.2/x", "url": "https://b/x", "error": "dns"}]}, {"prefix": "10.2"})
    {'doi': '10.2/x', 'url': 'https://b/x', 'error': 'dns'}
    """
    under = prefix["prefix"] + "/"
    found = [d.get("failed-example") for d in member.get("domains", [])]
    found += [{k: e.get(k) for k in ("doi", "url", "error")} for e in member.get("examples", []) if e.get("error")]
    return next((e for e in found if e and str(e.get("doi") or "").startswith(under)), None)


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


def comparable(now: dict, before: dict | None) -> bool:
    """Whether a member's share of correct pages can be compared with its previous one: at least MIN_READ pages read
    in each.

    >>> comparable({"read": 20}, {"read": 20}), comparable({"read": 20}, {"read": 14}), comparable({"read": 20}, None)
    (True, False, False)
    """
    return before is not None and min(now.get("read", 0), before.get("read", 0)) >= MIN_READ


def share_drop(now: dict, before: dict | None, compared: int = 1) -> dict | None:
    """The fall in the share of correct pages, when it is SHARE_DROP or more and beyond sampling noise among the
    `compared` members (landing.core.publishing.proportions): {from, to, from-read, to-read, from-interval, to-interval, p-value};
    with `unsure` true, and no test, when fewer than MIN_READ pages were read on either side. None otherwise.

    >>> share_drop({"ok-share": 0.8, "read": 100, "correctness": {"ok": 80}},
    ...            {"ok-share": 0.9, "read": 100, "correctness": {"ok": 90}})  # p 0.03: noise
    >>> share_drop({"ok-share": 0.0, "read": 30, "correctness": {"ok": 0}},
    ...            {"ok-share": 1.0, "read": 30, "correctness": {"ok": 30}}, compared=300)["p-value"] < 1e-15
    True
    """
    was, is_ = (before or {}).get("ok-share"), now.get("ok-share")
    if was is None or is_ is None or was - is_ < SHARE_DROP - 1e-9:
        return None
    had, has = before.get("correctness", {}).get("ok", 0), now.get("correctness", {}).get("ok", 0)
    found = {
        "from": was,
        "to": is_,
        "from-read": before["read"],
        "to-read": now["read"],
        "from-interval": [round(x, 4) for x in interval(had, before["read"])],
        "to-interval": [round(x, 4) for x in interval(has, now["read"])],
    }
    if not comparable(now, before):
        return {**found, "unsure": True}
    p_value = fell(had, before["read"], has, now["read"])
    return {**found, "p-value": p_value} if beyond_noise(p_value, compared) else None


def alert(
    now: dict,
    before: dict | None,
    moved: dict[str, dict],
    version: str,
    previous: str | None,
    compared: int = 1,
    agent: str = AGENT,
) -> dict | None:
    """The alert of one member (Contract 2 of docs/artifacts.md), or None when it has nothing to fix and nothing got
    worse. `moved`: `moves()` of the version's changes (only the member's prefixes are read); `compared`: how many
    members' shares this version compares (`comparable`); `agent`: the crawler's user agent, for robots.txt."""
    fix = to_fix(now)
    drop = share_drop(now, before, compared)
    worse = {
        "new-failures": new_failures(now, before) if before is not None else [],
        "moved": [
            {"prefix": p["prefix"], **moved[p["prefix"]]} for p in now.get("prefixes", []) if p["prefix"] in moved
        ],
        "share-drop": drop if drop and not drop.get("unsure") else None,
    }
    if not any(fix.values()) and not any(worse.values()):
        return None  # a fall on too few DOIs to tell is said beside something else, never alone
    made = {"member": now["member"], "name": now.get("name"), "version": version, "previous": previous}
    unsure = drop if drop and drop.get("unsure") else None
    told = summary(now, fix, worse, previous, unsure, agent)
    return {**made, "fix": fix, "worse": worse, "too-few-to-tell": unsure, "summary": told}


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


def _between(hits: int, of: int) -> str:
    """A share with its 95% interval and sample, as a summary shows it.

    >>> _between(12, 14)
    '85.7% (95% interval 60.1–96.0%, of 14 read)'
    """
    return _shown(hits / of, interval(hits, of), of)


def _shown(share: float, between: Iterable[float], of: int) -> str:
    low, high = between
    return f"{_percent(share)} (95% interval {_percent(low)[:-1]}–{_percent(high)}, of {of:,} read)"


def _at(example: dict | None) -> str:
    """An example DOI and where its visit ended, for a summary.

    >>> _at({"doi": "10.1/x", "url": "https://a/x"}), _at({"doi": "10.1/x", "url": None}), _at(None)
    (', e.g. 10.1/x at https://a/x', ', e.g. 10.1/x', '')
    """
    if not example or not example.get("doi"):
        return ""
    return f", e.g. {example['doi']}" + (f" at {example['url']}" if example.get("url") else "")


def _unread(member: dict, fix: dict, agent: str) -> list[str]:
    """The sentences on pages that could not be read: prefixes none of whose pages was read, then, for each failure
    class the publisher can fix, how, on the domain of an example."""
    parts = []
    for p in fix["prefixes-unread"][:LISTED]:
        classes = ", ".join(f"{c} {n:,}" for c, n in p["errors"].items())
        parts.append(f"We could not read any landing page of prefix {p['prefix']} ({classes}){_at(p['example'])}.")
    shown: dict[str, dict] = {}  # failure class -> an example of it, with its domain
    for d in fix["failing-domains"]:
        if d.get("example"):
            shown.setdefault(d["example"]["error"], {**d["example"], "domain": d["domain"]})
    for kept in member.get("examples", []):
        if kept.get("error") and kept.get("domain"):
            shown.setdefault(kept["error"], kept)
    for name in member.get("errors", {}):
        if name in HOW and name in shown:
            how, example = HOW[name].format(agent=agent), shown[name]
            parts.append(f"To let us read {example['domain']}, {how}{_at(example)} ({name}).")
    return parts


def summary(
    member: dict, fix: dict, worse: dict, previous: str | None, unsure: dict | None = None, agent: str = AGENT
) -> str:
    """The alert as one plain-text paragraph: the figures, what could not be read, what to fix and how, what got
    worse."""
    read, ok, failed = member.get("read", 0), member.get("correctness", {}).get("ok", 0), member.get("failed", 0)
    said = f"{who(member)}: of {_count(member.get('dois', 0), 'DOI')} sampled, {_count(read, 'landing page')} read"
    parts = [said + (f", {ok:,} with a correct DOI meta tag: {_between(ok, read)}." if read else ".")]
    if failed:
        classes = ", ".join(f"{c} {n:,}" for c, n in member.get("errors", {}).items())
        named = [d["domain"] for d in fix["failing-domains"]]
        where = f", on {_some(named)}" if named else ""
        parts.append(f"{_count(failed, 'landing page')} could not be read ({classes}){where}.")
    parts += _unread(member, fix, agent)
    if fix["prefixes-without-good-domain"]:
        some = fix["prefixes-without-good-domain"]
        parts.append(f"No landing page read of prefix{'es' if len(some) > 1 else ''} {_some(some)} states its DOI.")
    if fix["domains-missing-doi"]:
        named = [f"{d['domain']} ({d['missing']:,} of {d['dois']:,})" for d in fix["domains-missing-doi"]]
        parts.append(f"Pages lack a DOI meta tag on {_some(named)}.")
        example = next((d["example"] for d in fix["domains-missing-doi"] if d.get("example")), None)
        if example:
            tag = META_TAG.format(doi=example["doi"])
            parts.append(f"Add to each landing page its DOI's tag, e.g. {tag} to {example['url']}.")
    if fix["domains-wrong-doi"]:
        named = [
            f"{d['domain']} ({d['incorrect'] + d['conflict']:,} of {d['dois']:,}"
            + (f", e.g. {d['example']})" if d["example"] else ")")
            for d in fix["domains-wrong-doi"]
        ]
        parts.append(f"Meta tags state another DOI, or several, on {_some(named)}: each page's should state its own.")
    since = f"since version {previous}" if previous else "since the previous version"
    if worse["moved"]:
        named = [f"{m['prefix']} from {', '.join(m['from'])} to {', '.join(m['to'])}" for m in worse["moved"]]
        parts.append(f"Moved {since}: {_some(named)}. {MOVED}")
    if worse["new-failures"]:
        named = [f"{f['class']} on {f['domain']} ({f['dois']:,})" for f in worse["new-failures"]]
        parts.append(f"New failures {since}: {_some(named)}.")
    for drop, verb, end in (
        (worse["share-drop"], "fell", ", more than sampling explains"),
        (unsure, "went", f": too few DOIs to tell whether it fell (at least {MIN_READ} read each time)"),
    ):
        if drop:
            was = _shown(drop["from"], drop["from-interval"], drop["from-read"])
            is_ = _shown(drop["to"], drop["to-interval"], drop["to-read"])
            parts.append(f"The share of correct pages {verb} from {was} to {is_} {since}{end}.")
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
