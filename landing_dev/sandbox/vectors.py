"""A world serving a URL/DOI vectors file (the corpus's url-doi-vectors/dev.jsonl's shape), and a landing-page
corpus' real pages when given one, for scoring the matcher on real inputs: bench/vectors.py.

Every vector's DOI is registered (its PII and shortDOI too, when the input names one) with a title; each vector's
URL serves a page whose DOI meta tag states the DOI, with the title; a vector without a DOI gets a page that
states none. Two shapes:

- `friendly`: each DOI resolves to its first vector's own URL (or to a page of its own when the input is no URL).
- `elsewhere`: the real pages' hard case. Each page-only vector's DOI resolves to another page: an aggregator's or
  repository's record (its note says so) to a publisher page on another domain, any other to another path of the
  same host (an abstract beside a full text, a legacy URL scheme). Beside each such vector a trap: a page of the
  same host whose meta tag names that DOI but whose title is another work's (a page naming another work of its
  prefix); its right answer is no DOI.

Decoys in footers, DOIs hidden in scripts and pages without a title are not modelled in the vectors' pages; the
corpus' real pages have them all. With a corpus (its landing-pages/ folder), each manifest row's page is served
at its `page_url` from its file, read where it lies (it replaces a vector's page at the same URL: the real page is
what that URL serves), and each DOI of the manifest is registered with that URL as its resource URL, and with no
title: no registry's title is at hand, and the page's own citation_title would hand the registered-title check a
free pass. A row without a page URL (or captured at the resolver) gets a page of its own under corpus.example. With
the shape `elsewhere` each corpus DOI resolves to another path of its page's host (`/article-abstract/...`), which
serves the same page: the matcher must then vouch for the page's DOI without the resolver leading back to it.
"""

import csv
import json
from pathlib import Path
from urllib.parse import urlsplit

from landing.core.matching import readings
from landing.core.pids.doi import RESOLVER_HOSTS, prefix
from landing_dev.sandbox.corpus import page_url

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
    url = readings.as_url(readings.cleaned(text))
    return url if url and urlsplit(url).hostname not in RESOLVER_HOSTS else None


def title(doi: str) -> str:
    """A registered title as distinctive as a real one, the same for a DOI every time."""
    return f"Findings on {doi.split('/', 1)[1]} from the registry of {prefix(doi)}"


def _stated(records: dict, doi: str | None) -> str | None:
    """The title a vector's page states: its DOI's registered one, or a title of its own for a corpus DOI (which
    has none registered)."""
    if not doi:
        return None
    return records[doi]["title"] if doi in records and records[doi].get("title") else f"A page of {doi}"


def _page(doi: str | None, stated: str | None) -> str:
    meta = f'<meta name="citation_doi" content="{doi}">' if doi else ""
    if stated:
        meta += f'<meta name="citation_title" content="{stated}">'
    return (
        f"<html><head>{meta}<title>{stated or 'A vector'} | A vector's site</title></head>"
        f"<body><p>A page.</p></body></html>"
    )


def _elsewhere(row: dict, url: str) -> str:
    """Where the shape `elsewhere` registers a page-only vector's DOI."""
    parts = urlsplit(url)
    if "aggregator" in (row.get("note") or ""):
        return f"https://publisher-{prefix(row['doi'].lower())}.example/article/{row['doi'].lower()}"
    return f"{parts.scheme}://{parts.netloc}/article-abstract{parts.path or '/'}"


def corpus_pages(corpus_dir) -> list[dict]:
    """A landing-page corpus' manifest rows as pages: doi (None for a page of no DOI), url, file; rows with a page
    URL first, so that a DOI captured twice is registered where a page URL names it."""
    corpus_dir = Path(corpus_dir).resolve()
    with (corpus_dir / "manifest.csv").open(newline="", encoding="utf-8") as manifest:
        rows = list(csv.DictReader(manifest))
    pages = []
    for row in sorted(rows, key=lambda r: not (r.get("page_url") or "").strip()):
        doi = (row.get("doi") or "").strip().lower() or None
        pages.append({"doi": doi, "url": page_url(row), "file": str(corpus_dir / row["file"])})
    return pages


def _add_corpus(corpus_dir, records: dict, files: dict, shape: str) -> None:
    """The corpus' pages into `files` (URL: file), their DOIs into `records`, untitled: registered at the page, or
    with the shape `elsewhere` at another path of its host serving the same page (an abstract beside a full text)."""
    for page in corpus_pages(corpus_dir):
        files.setdefault(page["url"], page["file"])
        if page["doi"] and not records.get(page["doi"], {}).get("corpus"):
            url = page["url"]
            if shape == "elsewhere":
                parts = urlsplit(url)
                url = f"{parts.scheme}://{parts.netloc}/article-abstract{parts.path or '/'}"
                files.setdefault(url, page["file"])
            record = records.setdefault(page["doi"], {"doi": page["doi"], "ra": "crossref"})
            record.update(member=prefix(page["doi"]), url=url, title=None, corpus=True)


def build(rows: list[dict], outdir, shape: str = "friendly", corpus=None) -> list[dict]:
    """Write world.json, dois.jsonl and routes.jsonl for these vectors (and a corpus folder's pages, when given) into
    outdir; the rows to score (the vectors, then the shape's traps, each with `doi` None)."""
    outdir = Path(outdir)
    outdir.mkdir(parents=True, exist_ok=True)
    records, routes, traps, files = {}, {}, [], {}
    for row in rows:
        doi, url = (row.get("doi") or "").lower() or None, _landing(row["url"])
        if url:
            routes.setdefault(url, doi)
        if not doi:
            continue
        record = records.setdefault(
            doi, {"doi": doi, "ra": "crossref", "member": prefix(doi), "url": None, "title": title(doi)}
        )
        if shape == "elsewhere" and url and row.get("kind") == "page-only":
            record["url"] = record["url"] or _elsewhere(row, url)
            trap = f"{urlsplit(url).scheme}://{urlsplit(url).netloc}/another-work/{len(traps)}"
            routes[trap] = (doi, f"Another work of {prefix(doi)}, number {len(traps)}, on this site")
            traps.append({"url": trap, "doi": None, "kind": "page-trap", "note": "names another work's DOI"})
        record["url"] = record["url"] or url  # the first vector's URL that names a page
        literal = readings.literal(readings.cleaned(row["url"]))
        if literal and literal[0] == "short":
            record["short"] = literal[1]
        if row.get("kind") == "pii" and (pii := readings.pii(row["url"])):
            record["pii"] = pii
    if corpus:
        _add_corpus(corpus, records, files, shape)
    for record in records.values():
        record["url"] = record["url"] or f"{HOME}/{record['doi']}"
        routes.setdefault(record["url"], record["doi"])
    members = sorted({r["member"] for r in records.values()})
    (outdir / "world.json").write_text(
        json.dumps(
            {
                "format": "landing-sandbox/1",
                "members": [{"id": m, "primary-name": f"Registrant {m}", "prefixes": [m]} for m in members],
            }
        )
    )
    (outdir / "dois.jsonl").write_text(
        "".join(json.dumps({k: v for k, v in r.items() if k != "corpus"}) + "\n" for r in records.values())
    )
    pages = {u: (d if isinstance(d, tuple) else (d, _stated(records, d))) for u, d in routes.items() if u not in files}
    (outdir / "routes.jsonl").write_text(
        "".join(json.dumps({"url": u, "body": _page(*d)}) + "\n" for u, d in pages.items())
        + "".join(json.dumps({"url": u, "body_file": f}) + "\n" for u, f in files.items())
    )
    return rows + traps
