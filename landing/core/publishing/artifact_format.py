"""The artifact files' format: the lists `prefix,domain,ra` (good and bad), the decision structure's JSON (written
and read by its model, landing.core.matching.decisions.Decisions) and the times seen (landing.core.publishing.sightings); rendered sorted
and deterministic, parsed back to the same Artifacts."""

import csv
import io
from collections.abc import Iterable

from landing.core.matching.decisions import Decisions
from landing.core.publishing.artifact_sets import Artifacts, decisions, one_ra_per_prefix
from landing.core.publishing.sightings import SEEN_CSV, SEEN_FIELDS, merged
from landing.core.publishing.spreadsheet import writer
from landing.core.web.hostnames import valid_hostname
from landing.core.web.labels import printable

GOOD_CSV = "prefixes-domains.csv"
BAD_CSV = "prefixes-domains-bad.csv"
DECISIONS_JSON = "domain-decision-structure.json"
FILENAMES = (GOOD_CSV, BAD_CSV, DECISIONS_JSON, SEEN_CSV)

# The Percolator's `prefix,domain,ra`. A header is tolerated on input only: render writes none.
_HEADER = ("prefix", "domain", "ra")
_DATED = 5  # older versions wrote first-seen and last-seen after the three fields: still read


class ArtifactError(ValueError):
    """An artifact that cannot be read, the one error of every artifact reader: which (`name`: its file name or path)
    and what is wrong with it, in one printable line, `name: what` unless `said` words it otherwise."""

    def __init__(self, name, what: str, said: str | None = None):
        super().__init__(printable(f"{name}: {what}" if said is None else said))
        self.name, self.what = name, what


def _csv(rows: Iterable[tuple[str, ...]]) -> str:
    buffer = io.StringIO()
    writer(buffer).writerows(sorted(rows))
    return buffer.getvalue()


def render(a: Artifacts) -> dict[str, str]:
    """Filename -> text of the four artifact files; sorted, deterministic, no CSV header."""
    with_good = {prefix for prefix, _, _ in a.good}
    good_rows = set(a.good) | {(p, "", ra) for p, ra in a.prefixes if p not in with_good}
    return {
        GOOD_CSV: _csv(good_rows),
        BAD_CSV: _csv(a.bad),
        DECISIONS_JSON: decisions(a).to_json(),
        SEEN_CSV: _csv(a.seen),
    }


def _rows(name: str, text: str, header: tuple[str, ...], widths: tuple[int, ...]) -> list[tuple[str, ...]]:
    """The lines of a CSV file but a header, each of one of `widths` fields; ArtifactError naming the file and the
    line otherwise."""
    reader = csv.reader(io.StringIO(text), strict=True)
    rows = []
    try:
        for row in map(tuple, reader):
            if row and row[: len(header)] != header:
                if len(row) not in widths:
                    what = f"{len(row)} fields, expected {','.join(header)}"
                    raise ArtifactError(name, f"line {reader.line_num}: {what}")
                rows.append(row)
    except csv.Error as error:
        raise ArtifactError(name, f"line {reader.line_num}: {error}") from None
    return rows


def _host(domain: str) -> bool:
    """Whether a domain read back is a hostname, or "" (an older version's may be neither)."""
    return not domain or valid_hostname(domain)


def parse(files: dict[str, str]) -> Artifacts:
    """Inverse of `render`; a missing file counts as empty, so the JSON alone is enough. A pair whose domain is no
    hostname (written before domains were checked) is left out; ArtifactError for a file that cannot be read."""
    good_rows, bad_rows = (_rows(name, files.get(name, ""), _HEADER, (3, _DATED)) for name in (GOOD_CSV, BAD_CSV))
    read = Decisions()
    if files.get(DECISIONS_JSON):
        try:
            read = Decisions.read(files[DECISIONS_JSON])
        except ValueError as error:
            raise ArtifactError(DECISIONS_JSON, str(error).removeprefix("domain-decision-structure: ")) from None
    # CSV lines carry the ra; the JSON only names prefixes, so its ra is unknown ("").
    known = [(row[0], row[2]) for row in (*good_rows, *bad_rows)]  # a prefix stays known when its domain is left out
    known += [(p, "") for p in sorted(read.prefixes)]
    good_rows, bad_rows = ([row for row in rows if _host(row[1])] for rows in (good_rows, bad_rows))
    spans = [row[:2] + row[3:] for row in (*good_rows, *bad_rows) if len(row) == _DATED and (row[3] or row[4])]
    spans += [row for row in _rows(SEEN_CSV, files.get(SEEN_CSV, ""), SEEN_FIELDS, (4,)) if _host(row[1])]
    return Artifacts(
        good=frozenset(row[:3] for row in good_rows if row[1]),
        bad=frozenset(row[:3] for row in bad_rows),
        prefixes=one_ra_per_prefix(known),
        recognised=frozenset(pair for pair in read.recognised if _host(pair[0])),
        confirmed=frozenset(pair for pair in read.confirmed if _host(pair[0])),
        ends=frozenset(end for end in read.ends() if _host(end[0])),
        seen=merged(spans),
    )
