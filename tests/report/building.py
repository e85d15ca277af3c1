"""A small store of named members' analyses, published twice (two versions: changes and trends), for the report
directory's tests: every member's situation is one the report must show (all good, nothing read, wrong tags,
a name that is HTML, one DOI too few to rank)."""

from pathlib import Path

from landing.core.pages import documents
from landing.core.registries.names import Names
from landing.publish import publish
from landing.stores.sqlite import SqliteDocStore

DAY1, DAY2 = "2026-11-23T10:00:00Z", "2026-11-24T10:00:00Z"
HOSTILE = 'Evil <img src=x onerror="alert(1)"> Press'
# (ra, member id, names, prefix, domain, [(ending, DOIs)]): an ending is a correctness, or a failure class.
MEMBERS = [
    ("crossref", "101", Names("Harbour Lane Press"), "10.1001", "harbour.example", [("ok", 8), ("missing", 2)]),
    ("crossref", "102", Names("Orchid Riverside"), "10.1002", "link.orchid-riverside-5.example", [("robots", 10)]),
    ("crossref", "103", Names("Quay Books"), "10.1003", "quay.example", [("incorrect", 6), ("conflict", 1)]),
    (
        "datacite",
        "x.repo",
        Names("X Repository", "xp", "X Provider"),
        "10.5000",
        "repo.example",
        [("ok", 5), ("challenge", 1)],
    ),
    ("crossref", "104", Names("Tiny Press"), "10.1004", "tiny.example", [("ok", 1)]),
    ("crossref", "105", Names(HOSTILE), "10.1005", "evil.example", [("missing", 5)]),
]
# The second version: Quay Books fixed half its pages.
SECOND = {"10.1003": [("ok", 4), ("incorrect", 3)]}


def _visit(doi, ra, member, names, domain, ending, when):
    pid = documents.pid(doi, ra, member, when, names)
    failed = ending not in ("ok", "incorrect", "conflict", "missing")
    url = f"https://{domain}/article/{doi.split('/')[1]}"
    snapshot = documents.snapshot(
        pid,
        timestamp=when,
        driver="http",
        final_url=url,
        error=ending if failed else None,
        resource_url=url,
        status=None if failed else 200,
    )
    found = None
    if not failed:
        tags = {
            "ok": [["citation_doi", doi]],
            "incorrect": [["citation_doi", "10.9999/other"]],
            "conflict": [["citation_doi", doi], ["dc.identifier", "10.9999/other"]],
            "missing": [],
        }[ending]
        found = {
            "analysis/meta-tags": tags,
            "analysis/meta-tag-correctness": ending,
            "analysis/doi-in-meta-tags": "non-url" if ending == "ok" else None,
        }
    return documents.analysis(snapshot, found, when)


def analyses(second: bool = False) -> list[dict]:
    made = []
    for ra, member, names, prefix, domain, endings in MEMBERS:
        when = DAY2 if second and prefix in SECOND else DAY1
        n = 0
        for ending, count in SECOND[prefix] if second and prefix in SECOND else endings:
            for _ in range(count):
                n += 1
                made.append(_visit(f"{prefix}/{n}", ra, member, names, domain, ending, when))
    return made


def published(root: Path) -> Path:
    """Publish the store twice (the second time with SECOND's changes); the artifacts directory."""
    docs = SqliteDocStore(root / "docs.db")
    try:
        for second in (False, True):
            for doc in analyses(second):
                docs.put("analysis", documents.analysis_id(doc), doc)
            docs.put(
                "run",
                "run-1",
                {
                    "run/id": "run-1",
                    "run/started": DAY1,
                    "run/state": "finished",
                    "run/sources": ["crossref", "datacite"],
                    "run/owners": 6,
                    "run/dois-planned": 40,
                    "run/updated": DAY2 if second else DAY1,
                },
            )
            publish(docs, root / "artifacts")
    finally:
        docs.close()
    return root / "artifacts"
