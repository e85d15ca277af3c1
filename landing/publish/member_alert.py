"""One member's alert in the latest version that has the report's data (`scrapy report --member ID`)."""

from pathlib import Path

from landing.artifacts.artifact_files import versions
from landing.core.publishing.member_finding import matching, said
from landing.core.publishing.slugs import slug
from landing.publish.report_data import ALERTS, MEMBERS, read_jsonl_gz, read_jsonl_objects

PAGES = Path("report") / "members"  # where the report directory keeps a member's page (docs/artifacts.md)


class MemberNotFound(LookupError):
    """No such member, or an id more than one agency uses: the message says which, in one line."""


def latest_with_members(artifacts_dir) -> Path:
    """The newest version directory holding members.jsonl.gz; MemberNotFound when none does."""
    for version in reversed(versions(artifacts_dir)):
        if (version / MEMBERS).is_file():
            return version
    raise MemberNotFound(f"no artifact version under {artifacts_dir} has {MEMBERS}: export one (scrapy artifacts)")


def resolve(version: Path, ident: str) -> dict:
    """The member object `ident` names in a version: `<ra>/<id>` exactly, an id only one agency uses, or a name
    (landing.core.publishing.member_finding)."""
    found = matching(ident, read_jsonl_gz(version / MEMBERS, "member"))
    if len(found) == 1:
        return found[0]
    if found:
        raise MemberNotFound(
            f"{ident!r} matches {len(found)} members: {said(found)}; give one as <ra>/<id> (crossref/340)"
        )
    raise MemberNotFound(
        f"no member {ident!r} in version {version.name}: give a name, or crossref/<id> or datacite/<id>"
    )


def member_alert(artifacts_dir, ident: str) -> tuple[dict, dict | None, Path, Path]:
    """(the member's object, its alert or None, the version read, its page in the top-level report directory)."""
    version = latest_with_members(artifacts_dir)
    member = resolve(version, ident)
    alerts = version / ALERTS
    found = None
    if alerts.is_file():
        found = next((a for a in read_jsonl_objects(alerts) if a.get("member") == member["member"]), None)
    return member, found, version, Path(artifacts_dir) / PAGES / f"{slug(member['member'])}.html"
