"""A member's page and a domain's page, drawn from one Contract 2 object each (members.jsonl.gz, domains.jsonl.gz):
text only, so that a full run's thousands of them draw in seconds."""

from html import escape

from landing.core.publishing.report_rows import (
    AGENCY_MEMBERS,
    DOMAIN_COLUMNS,
    DOMAIN_MEMBER_COLUMNS,
    EXAMPLE_COLUMNS,
    MEMBER_PREFIX_COLUMNS,
    against_median,
    counted,
    domain_member_rows,
    domain_row,
    estimate,
    example_row,
    member_prefix_rows,
)
from landing.core.publishing.slugs import slug
from landing.report.html import page, section, text
from landing.report.index import correctness_bar, failures_bar, trend_section
from landing.report.tables import Tables


def _said(obj: dict, what: str) -> str:
    row = counted(obj)
    ok = obj["correctness"].get("ok", 0)
    return (
        f"<p>{row['dois']:,} DOIs {what}: {row['read']:,} pages read, {row['failed']:,} visits failed; ok"
        f" {estimate(ok, row['dois'])} DOIs, {estimate(ok, row['read'])} pages read.</p>"
        + correctness_bar(
            f"Meta-tag correctness of the {row['dois']:,} DOIs {what}", {**obj["correctness"], "failed": row["failed"]}
        )
        + (
            failures_bar(f"Failure classes of the {row['failed']:,} failed visits {what}", obj["errors"])
            if row["failed"]
            else ""
        )
    )


def _alert(alert: dict | None) -> str:
    if not alert:
        return "<p>Nothing to fix, and nothing worse than in the last version.</p>"
    return f"<p class=wide>{text(alert.get('summary'))}</p>"


def _compared(member: dict, middle: dict | None) -> str:
    """The member beside the median member of its agency; nothing for figures kept before medians were."""
    if not middle:
        return ""
    agency = AGENCY_MEMBERS.get(member["member"].split("/", 1)[0], "members of its agency")
    rows = "".join(
        f"<tr><th class=x scope=row>{text(r['measure'])}</th><td>{text(r['member'])}</td><td>{text(r['median'])}</td></tr>"
        for r in against_median(member, middle)
    )
    return (
        f"<table><thead><tr><th></th><th scope=col>this one</th><th scope=col>the median of all {middle['members']:,}"
        f" {text(agency)}</th></tr></thead><tbody>{rows}</tbody></table>"
    )


def member_page(
    member: dict, points: list[dict], alert: dict | None, nonce: str, middle: dict | None = None
) -> tuple[str, str, Tables]:
    """(file slug, HTML, Tables) of a member's page; `points` its own trend (one per kept version, oldest first),
    `middle` the median member of its agency (landing.core.publishing.report_figures.medians)."""
    key, tables = member["member"], Tables("../")
    own = slug(key)
    name = member.get("name")
    provider = member.get("provider") or {}
    title = f"{name} ({key})" if name else key
    by = f", provider {text(provider.get('name') or provider.get('id'))}" if provider else ""
    head = f"<p>{text(key)}{by}{'' if name else ' (no name in the listing)'}.</p>"
    shown = len(member.get("domains") or ())
    sections = [
        ("summary", "Summary", head + _said(member, "of this member") + _compared(member, middle)),
        ("fix", "What to fix", _alert(alert)),
        (
            "prefixes",
            f"Prefixes ({len(member.get('prefixes') or ()):,})",
            tables.add(f"{own}.prefixes", "Prefixes", MEMBER_PREFIX_COLUMNS, member_prefix_rows(member)),
        ),
        (
            "domains",
            f"Domains its DOIs led to ({member.get('domains-total', shown):,})",
            (f"<p class=note>The {shown} with most DOIs.</p>" if member.get("domains-total", shown) > shown else "")
            + tables.add(
                f"{own}.domains", "Domains", DOMAIN_COLUMNS, [domain_row(d) for d in member.get("domains") or ()]
            ),
        ),
        (
            "examples",
            "Example DOIs",
            "<p>One DOI per failure class and per kind of wrong meta tags first, then good ones: where each led, and"
            " what its page said.</p>"
            + tables.add(
                f"{own}.examples", "Examples", EXAMPLE_COLUMNS, [example_row(e) for e in member.get("examples") or ()]
            ),
        ),
        ("trend", "Trend over versions", trend_section(points, tables, f"{own}.trend")),
    ]
    body = "".join(section(a, t, html) for a, t, html in sections)
    return own, page(title, [(a, t) for a, t, _ in sections], body, nonce=nonce, up="../"), tables


def domain_page(domain: dict, nonce: str) -> tuple[str, str, Tables]:
    """(file slug, HTML, Tables) of a domain's page: its figures, and the members whose prefixes lead there."""
    key, tables = domain["domain"], Tables("../")
    own = slug(key)
    members = domain_member_rows(domain)
    total = domain.get("members-total", len(members))
    sections = [
        ("summary", "Summary", _said(domain, "sampled here") + _failures(domain)),
        (
            "members",
            f"Members whose prefixes lead here ({total:,})",
            (f"<p class=note>The {len(members)} with most DOIs here.</p>" if total > len(members) else "")
            + tables.add(f"{own}.members", "Members", DOMAIN_MEMBER_COLUMNS, members),
        ),
    ]
    body = "".join(section(a, t, html) for a, t, html in sections)
    return own, page(f"Domain {key}", [(a, t) for a, t, _ in sections], body, nonce=nonce, up="../"), tables


def _failures(domain: dict) -> str:
    errors = domain.get("errors") or {}
    if not errors:
        return ""
    return "<p>Failure classes: " + escape(", ".join(f"{k} {v:,}" for k, v in sorted(errors.items()))) + ".</p>"


def member_point(version: str, member: dict) -> dict:
    """A member's point of its own trend: as a version's trend point (landing.core.publishing.report_figures.trend_point)."""
    correctness, failed = member.get("correctness") or {}, member.get("failed", 0)
    return {"version": version, "dois": member.get("dois", 0), "correctness": correctness, "failed": failed}
