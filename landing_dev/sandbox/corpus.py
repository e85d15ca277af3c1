"""Real captured landing pages as part of a world: routes whose body is the page file, read at serve time.

The pages stay where they are (the corpus is third-party material and never enters the repo): a world refers to
them by absolute path.
"""

import csv
import os
from pathlib import Path
from urllib.parse import urlsplit

from landing_dev.sandbox import crossref, datacite, resolver

_SERVICE_HOSTS = set(resolver.HOSTS + crossref.HOSTS + datacite.HOSTS)  # no landing page lives there

MEMBER_BASE = 990000  # Crossref-style numeric ids for the corpus' prefixes, far from generated ones
# The corpus the tests and benchmarks read when it is there (landing-pages/, url-doi-vectors/): LANDING_TEST_CORPUS
# names its folder, else the build machine's place for it (docs/testing.md "The corpus").
FOLDER = Path(os.environ.get("LANDING_TEST_CORPUS") or Path(__file__).resolve().parents[3] / "shared" / "corpus")


def page_url(row: dict) -> str:
    """Where a manifest row's page is served: its page URL, or one of its own under corpus.example when it has none
    or was captured at the resolver or a registry, where no landing page lives."""
    url = (row.get("page_url") or "").strip()
    if not url or urlsplit(url).hostname in _SERVICE_HOSTS:
        url = f"https://corpus.example/{Path(row['file']).stem}"
    return url


def corpus_entries(corpus_dir) -> list[dict]:
    """One entry per manifest row that names a DOI: doi, page URL (synthesised when unknown), file path."""
    corpus_dir = Path(corpus_dir).resolve()
    manifest = corpus_dir / "manifest.csv"
    if not manifest.is_file():
        raise ValueError(f"{corpus_dir}: no manifest.csv here; expected a landing-page corpus folder")
    entries, seen = [], set()
    with manifest.open(newline="", encoding="utf-8") as rows:
        for row in csv.DictReader(rows):
            doi = (row.get("doi") or "").strip()
            if not doi or doi.lower() in seen:
                continue
            seen.add(doi.lower())
            entries.append(
                {
                    "doi": doi,
                    "url": page_url(row),
                    "file": str(corpus_dir / row["file"]),
                    "manifest": {k: row.get(k) for k in ("doi_in_meta", "doi_in_links", "doi_in_text")},
                }
            )
    return entries


def corpus_members(entries, taken: set) -> list[dict]:
    """One Crossref member per DOI prefix of the corpus."""
    prefixes = sorted({e["doi"].split("/", 1)[0].lower() for e in entries} - taken)
    return [
        {
            "id": str(MEMBER_BASE + i),
            "primary-name": f"Corpus {p}",
            "prefixes": [p],
            "location": "",
            "platform": "corpus",
        }
        for i, p in enumerate(prefixes)
    ]


def corpus_route(entry) -> dict:
    return {"url": entry["url"], "body_file": entry["file"]}
