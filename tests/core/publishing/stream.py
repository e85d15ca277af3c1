"""A fixed stream of analysis documents that reaches every rule of the one aggregation (tests/core/publishing/test_aggregated.py):
two registration agencies, members with names and without, a DOI of no member and one of no DOI, failures of several
classes, a visit refused, one that never left the resolver, one that ended on no hostname, and prefixes only listed."""

from tests.core.publishing.aggregating import doc

EARLY, LATE = "2030-01-01T00:00:00Z", "2030-02-01T00:00:00Z"


def _at(d: dict, when: str, name: str | None = None, **more) -> dict:
    return {**d, "snapshot/timestamp": when, "pid/timestamp": when, "pid/member-name": name, **more}


STREAM = [
    _at(doc("10.1/a", "a.example", correctness="ok", meta="https-doi"), EARLY, "Old Press"),
    _at(doc("10.1/b", "a.example", correctness="missing", text="non-url"), LATE, "Press"),
    _at(doc("10.1/c", "b.example", correctness="incorrect", meta="non-url"), EARLY, "Press"),
    _at(doc("10.1/d", "b.example", correctness="conflict", links="https-doi"), EARLY, "Press"),
    _at(doc("10.2/e", "b.example", error="robots"), LATE, "Press"),
    _at(doc("10.2/f", None, error="timeout"), LATE),
    _at(doc("10.2/g", "c.example", error="refused-address"), EARLY),
    _at(doc("10.3/h", "a.example", correctness="ok", meta="https-doi", member="9"), EARLY),
    _at(doc("10.3/i", "a.example", correctness="ok", links="doi-scheme", member="9"), LATE),
    _at(doc("10.3/j", "=cmd|x", correctness="missing", member="9"), LATE),
    {**_at(doc("10.4/k", "d.example", error="http-4xx", member="9"), EARLY), "snapshot/resource-url": None},
    _at(
        doc("10.5281/z", "zenodo.org", correctness="ok", meta="non-url", ra="datacite", member="cern.zenodo"),
        LATE,
        "Zenodo",
        **{"pid/provider-id": "cern", "pid/provider-name": "CERN"},
    ),
    _at(doc("10.5281/y", "zenodo.org", error="http-5xx", ra="datacite", member="cern.zenodo"), EARLY, "Zenodo"),
    {
        **_at(doc("10.6/n", "e.example", correctness="ok", meta="https-doi"), LATE),
        "pid/global-member-id": None,
        "pid/member-id": None,
    },
    {**_at(doc("10.7/p", "a.example", correctness="missing"), EARLY), "pid/doi-prefix": None},
    {**_at(doc("10.1/r", "b.example", error="http-4xx"), LATE, "Press"), "pid/doi": None, "pid/doi-prefix": None},
    _at(
        {
            **doc("10.1/q", "a.example", correctness="conflict"),
            "analysis/meta-tags": [["citation_doi", f"10.1/{n}"] for n in range(7)],
        },
        LATE,
        "Press",
    ),
]
LISTED = [("10.1", "crossref"), ("10.8", "crossref"), ("10.9", "datacite"), ("10.8", "datacite")]
