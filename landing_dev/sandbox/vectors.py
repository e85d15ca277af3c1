"""A world serving a URL/DOI vectors file (../shared/corpus/url-doi-vectors/dev.jsonl's shape), for scoring the
matcher on real inputs: bench/vectors.py.

What it models, and no more: every vector's DOI is registered (its PII and shortDOI too, when the input names
one), resolving to the vector's own URL (or to a page of its own when the input is no URL); each of those URLs
serves a page whose DOI meta tag states the DOI; a vector without a DOI gets a page that states none. The real
pages' ways of hiding or misstating a DOI (another URL of the same site, an aggregator, a decoy in a footer) are
not modelled: page-only scores here measure the plumbing, not those cases.
"""
import json
from pathlib import Path
from urllib.parse import urlsplit

from landing.core import matching
from landing.core.doi import RESOLVER_HOSTS, prefix

HOME = "https://vector-landing.example"


def read_vectors(path) -> list[dict]:
    """The vectors file's rows; a line that is not a JSON object with `url` names its line number."""
    rows = []
    for number, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), 1):
        if line.strip():
            row = json.loads(line)
            if not isinstance(row, dict) or not isinstance(row.get("url"), str):
                raise ValueError(f"{path}:{number}: expected a JSON object with a url")
            rows.append(row)
    return rows


def _landing(text: str) -> str | None:
    url = matching.as_url(matching.cleaned(text))
    return url if url and urlsplit(url).hostname not in RESOLVER_HOSTS else None


def _page(doi: str | None) -> str:
    meta = f'<meta name="citation_doi" content="{doi}">' if doi else ""
    return f"<html><head>{meta}<title>A vector's page</title></head><body><p>A page.</p></body></html>"


def build(rows: list[dict], outdir) -> None:
    """Write world.json, dois.jsonl and routes.jsonl for these vectors into outdir."""
    outdir = Path(outdir)
    outdir.mkdir(parents=True, exist_ok=True)
    records, routes = {}, {}
    for row in rows:
        doi, url = (row.get("doi") or "").lower() or None, _landing(row["url"])
        if url:
            routes.setdefault(url, doi)
        if not doi:
            continue
        record = records.setdefault(doi, {"doi": doi, "ra": "crossref", "member": prefix(doi), "url": None})
        record["url"] = record["url"] or url  # the first vector's URL that names a page
        literal = matching.literal(matching.cleaned(row["url"]))
        if literal and literal[0] == "short":
            record["short"] = literal[1]
        if row.get("kind") == "pii" and (pii := matching.pii(row["url"])):
            record["pii"] = pii
    for record in records.values():
        record["url"] = record["url"] or f"{HOME}/{record['doi']}"
        routes.setdefault(record["url"], record["doi"])
    members = sorted({r["member"] for r in records.values()})
    (outdir / "world.json").write_text(json.dumps({"format": "landing-sandbox/1", "members": [
        {"id": m, "primary-name": f"Registrant {m}", "prefixes": [m]} for m in members]}))
    (outdir / "dois.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records.values()))
    (outdir / "routes.jsonl").write_text("".join(json.dumps({"url": u, "body": _page(d)}) + "\n"
                                                 for u, d in routes.items()))
