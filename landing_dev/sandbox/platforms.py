"""Publisher platforms: how a site names its DOIs, where its landing pages live, which meta tags it writes.

Modelled on the habits of the real pages of the corpus (names, value forms, links, text; docs/testing.md) and on
the URL shapes of the real platforms they come from.
"""

import random
from dataclasses import dataclass, field
from urllib.parse import quote

from landing.core.pids.doi import express

# DOI meta tag names the sandbox writes, in the spellings real pages use.
META_NAMES = (
    "citation_doi",
    "dc.identifier",
    "DC.identifier",
    "dc.Identifier",
    "DC.Identifier",
    "DC.Identifier.DOI",
    "prism.doi",
    "prism:doi",
    "dc.source",
    "dc.Source",
    "publication_doi",
    "DOI",
)
# Value forms: an expression (core.doi.EXPRESSIONS), optionally percent-encoded ("+enc").
VALUE_FORMS = (
    "non-url",
    "doi-scheme",
    "https-doi",
    "http-dx-doi",
    "https-dx-doi",
    "http-doi",
    "non-url+enc",
    "https-doi+enc",
)
PLACEHOLDER_DOI = "10.5555/987654321"


def doi_value(doi: str, form: str) -> str:
    expression, _, enc = form.partition("+")
    return express(doi, expression, encoded=bool(enc))


def quote_doi(doi: str) -> str:
    return quote(doi, safe="/:;()")


@dataclass(frozen=True)
class Platform:
    name: str
    meta: tuple  # ((name, form, extra attributes), ...)
    link: str | None  # form of the doi.org link on the page, or None
    text: str | None  # how the page prints its DOI: "DOI: {}", "doi:{}", "https://doi.org/{}"
    canonical: bool
    refs: tuple  # (min, max) reference-list length
    ras: tuple = ("crossref",)
    refs_in_meta: bool = False
    hosts: tuple = field(default=("www",))

    def suffix(self, rng: random.Random, journal: str, number: int) -> str:
        year = rng.randrange(1995, 2026)
        return {
            "highwire": f"{journal}/{journal[0]}{number:06d}",
            "plos": f"journal.p{journal}.{number:07d}",
            "atypon": f"{journal}.{year}.{number}",
            "springer": f"s{rng.randrange(10000, 99999)}-{year % 100:03d}-{number:04d}-{rng.randrange(10)}",
            "elsevier": f"j.{journal}.{year}.{rng.randrange(1, 13):02d}.{number:03d}",
            "ojs": f"{journal}.v{rng.randrange(1, 40)}i{rng.randrange(1, 5)}.{number}",
            "society": f"{journal.upper()}-{year}-{number:04d}",
            "zenodo": f"zenodo.{number + 100000}",
            "dataverse": f"dvn/{_code(rng, 6).upper()}{number}",
            "repository": f"{_code(rng, 4)}-{number:04d}",
        }[self.name]

    def landing_url(self, host: str, doi: str, journal: str, number: int, pii: str | None) -> str:
        q = quote_doi(doi)
        return {
            "highwire": f"https://{host}/content/{number % 97 + 1}/{number % 12 + 1}/{q.split('/', 1)[1]}",
            "plos": f"https://{host}/p{journal}/article?id={q}",
            "atypon": f"https://{host}/doi/{q}",
            "springer": f"https://{host}/article/{q}",
            "elsevier": f"https://{host}/science/article/pii/{pii}",
            "ojs": f"https://{host}/index.php/{journal}/article/view/{number}",
            "society": f"https://{host}/articles/{number}",
            "zenodo": f"https://{host}/records/{number + 100000}",
            "dataverse": f"https://{host}/dataset.xhtml?persistentId=doi:{q}",
            "repository": f"https://{host}/handle/{number % 900 + 100}/{number}",
        }[self.name]


def _code(rng, n):
    return "".join(rng.choice("abcdefghjkmnpqrstvwxyz0123456789") for _ in range(n))


PLATFORMS = {
    p.name: p
    for p in (
        Platform(
            "highwire",
            (("citation_doi", "non-url", {}), ("DC.Identifier", "non-url", {})),
            "https-doi",
            "doi:{}",
            True,
            (20, 80),
            hosts=("{j}",),
        ),
        Platform(
            "plos",
            (("citation_doi", "non-url", {}), ("dc.identifier", "https-doi", {})),
            "https-doi",
            "https://doi.org/{}",
            False,
            (40, 90),
            hosts=("journals",),
        ),
        Platform(
            "atypon",
            (("dc.Identifier", "non-url", {"scheme": "doi"}), ("dc.Source", "http-dx-doi", {})),
            "https-doi+enc",
            "DOI: {}",
            False,
            (30, 120),
            hosts=("www",),
        ),
        Platform(
            "springer",
            (("citation_doi", "non-url", {}), ("prism.doi", "doi-scheme", {}), ("dc.identifier", "doi-scheme", {})),
            "https-doi",
            "DOI: {}",
            True,
            (30, 80),
            refs_in_meta=True,
            hosts=("link",),
        ),
        Platform("elsevier", (("citation_doi", "non-url", {}),), "https-doi", None, True, (40, 100), hosts=("www",)),
        Platform(
            "ojs",
            (("DC.Identifier.DOI", "non-url", {}), ("citation_doi", "non-url", {})),
            "https-doi",
            "https://doi.org/{}",
            False,
            (0, 40),
            hosts=("journals",),
        ),
        Platform("society", (("DOI", "non-url", {}),), None, "DOI: {}", False, (0, 30), hosts=("www",)),
        Platform(
            "zenodo",
            (("citation_doi", "non-url", {}), ("DC.identifier", "https-doi", {})),
            "https-doi",
            "https://doi.org/{}",
            True,
            (0, 10),
            ras=("datacite",),
            hosts=("records",),
        ),
        Platform(
            "dataverse",
            (("DC.identifier", "doi-scheme", {}), ("citation_doi", "non-url", {})),
            "https-doi",
            "doi:{}",
            True,
            (0, 5),
            ras=("datacite",),
            hosts=("dataverse",),
        ),
        Platform(
            "repository",
            (("prism:doi", "non-url", {}), ("dc.identifier", "https-dx-doi", {})),
            "https-dx-doi",
            "DOI: {}",
            False,
            (0, 20),
            ras=("datacite",),
            hosts=("repository",),
        ),
    )
}

# (platform, the scenario most of a member's DOIs follow, weight): real members keep to one platform.
CROSSREF_HABITS = (
    ("highwire", "http-to-https", 14),
    ("plos", "multi-hop", 6),
    ("atypon", "direct", 14),
    ("atypon", "cookie-wall", 6),
    ("atypon", "challenge", 2),
    ("springer", "direct", 14),
    ("springer", "robots-disallowed", 2),
    ("elsevier", "multi-hop", 8),
    ("ojs", "direct", 12),
    ("ojs", "placeholder-doi", 3),
    ("society", "tracking-params", 5),
    ("society", "text-only", 3),
    ("society", "meta-refresh", 2),
)
DATACITE_HABITS = (
    ("zenodo", "direct", 10),
    ("dataverse", "http-to-https", 5),
    ("repository", "meta-refresh", 2),
    ("repository", "js-redirect", 1),
)
