"""landing.core.publishing.slugs: a key's page name, safe on any filesystem and distinct for distinct keys."""

import re

from landing.core.publishing.slugs import slug

KEYS = [
    "crossref/331332",
    "crossref/331332/",
    "crossref-331332",
    "crossref/331-332",
    "crossref-331/332",
    "datacite/cern.zenodo",
    "datacite/CERN.ZENODO",
    "datacite/cern%2Ezenodo",
    "datacite/cern/zenodo",
    "xn--bcher-kva.example",
    "bücher.example",
    "..",
    ".hidden.example",
    "a" * 300,
    "a" * 299 + "b",
    "my_journal.example.org",
    "2001:db8::1",
]


def test_distinct_keys_of_one_kind_get_distinct_slugs():
    members = [key for key in KEYS if "/" in key]
    domains = [key for key in KEYS if "/" not in key]
    assert (len({slug(k) for k in members}), len({slug(k) for k in domains})) == (len(members), len(domains))


def test_every_slug_is_a_short_lower_case_name_of_safe_characters_that_starts_with_no_dot():
    unsafe = [s for s in map(slug, KEYS) if not re.fullmatch(r"[a-z0-9_%~-][a-z0-9._%~A-F-]{0,199}", s)]
    assert unsafe == []
