from landing.core.artifacts import Artifacts, excluding, merge
from landing.core.changes import changes, render_changes
from tests.core.aggregating import aggregate


def _doc(doi, domain, day, correctness="missing", meta=None):
    return {
        "pid/doi": doi,
        "pid/doi-prefix": doi.split("/")[0],
        "pid/ra": "crossref",
        "pid/member-id": "7",
        "snapshot/resource-url": f"https://{domain}/x",
        "snapshot/final-url": f"https://{domain}/x",
        "snapshot/final-url-domain": domain,
        "snapshot/error": None,
        "snapshot/timestamp": f"{day}T08:00:00Z",
        "analysis/meta-tag-correctness": correctness,
        "analysis/doi-in-meta-tags": meta,
        "analysis/doi-in-text": None,
        "analysis/doi-in-hyperlinks": None,
    }


FIRST = aggregate(
    [_doc("10.1/a", "old.example", "2026-11-01", "ok", "non-url"), _doc("10.2/b", "two.example", "2026-11-01")]
)


def test_a_site_that_moved_shows_its_new_domain_appearing_and_its_old_one_unseen_since_its_last_day():
    second = merge(FIRST, aggregate([_doc("10.1/a", "new.example", "2026-11-24", "ok", "non-url")]))
    found = changes(FIRST, second)
    assert found["pairs"] == [
        {
            "prefix": "10.1",
            "domain": "new.example",
            "appeared": ["good", "recognised", "confirmed"],
            "disappeared": [],
            "unseen-since": None,
        },
        {
            "prefix": "10.1",
            "domain": "old.example",
            "appeared": [],
            "disappeared": [],
            "unseen-since": "2026-11-01T08:00:00Z",
        },
    ]
    assert found["prefixes"] == {"appeared": [], "disappeared": []}


def test_a_pair_seen_again_the_same_day_or_a_prefix_not_sampled_again_is_no_change():
    again = merge(FIRST, aggregate([_doc("10.1/a", "old.example", "2026-11-01", "ok", "non-url")]))
    assert changes(FIRST, again)["pairs"] == []


def test_a_newly_excluded_domain_loses_its_trust_and_the_diff_says_so():
    found = changes(FIRST, excluding(FIRST, frozenset({"old.example"})))
    assert found["pairs"] == [
        {
            "prefix": "10.1",
            "domain": "old.example",
            "appeared": ["bad"],
            "disappeared": ["good", "recognised", "confirmed"],
            "unseen-since": None,
        }
    ]


def test_the_changes_read_per_prefix_and_per_domain():
    second = merge(
        FIRST, aggregate([_doc("10.1/a", "new.example", "2026-11-24"), _doc("10.3/c", "three.example", "2026-11-24")])
    )
    assert render_changes(changes(FIRST, second)) == (
        "prefixes: +1 -0\n"
        "  + 10.3\n"
        "by prefix:\n"
        "  10.1\n"
        "    new.example  +bad +recognised\n"
        "    old.example  not seen since 2026-11-01T08:00:00Z\n"
        "  10.3\n"
        "    three.example  +bad +recognised\n"
        "by domain:\n"
        "  new.example\n"
        "    10.1  +bad +recognised\n"
        "  old.example\n"
        "    10.1  not seen since 2026-11-01T08:00:00Z\n"
        "  three.example\n"
        "    10.3  +bad +recognised\n"
    )


def test_a_prefix_or_domain_holding_control_or_bidi_characters_is_printed_as_escapes():
    new = Artifacts(
        bad=frozenset({("10.1\x1b[2J", "a\u202ecred.example", "crossref")}),
        prefixes=frozenset({("10.1\x1b[2J", "crossref")}),
    )
    text = render_changes(changes(Artifacts(), new))
    assert text == (
        "prefixes: +1 -0\n"
        "  + 10.1\\x1b[2J\n"
        "by prefix:\n"
        "  10.1\\x1b[2J\n"
        "    a\\u202ecred.example  +bad\n"
        "by domain:\n"
        "  a\\u202ecred.example\n"
        "    10.1\\x1b[2J  +bad\n"
    )
