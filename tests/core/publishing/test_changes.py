from landing.core.publishing.artifact_sets import Artifacts, excluding, merge
from landing.core.publishing.changes import changes, prefix_owners, render_changes
from tests.core.publishing.aggregating import aggregate


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
            "news": True,
        },
        {
            "prefix": "10.1",
            "domain": "old.example",
            "appeared": [],
            "disappeared": [],
            "unseen-since": "2026-11-01T08:00:00Z",
            "missed": 0.0,
            "news": False,  # one DOI sampled since: fewer than MIN_DRAWS
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
            "news": True,
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
        "    old.example  not seen since 2026-11-01T08:00:00Z (likely sampling: not counted)\n"
        "  10.3\n"
        "    three.example  +bad +recognised\n"
        "by domain:\n"
        "  new.example\n"
        "    10.1  +bad +recognised\n"
        "  old.example\n"
        "    10.1  not seen since 2026-11-01T08:00:00Z (likely sampling: not counted)\n"
        "  three.example\n"
        "    10.3  +bad +recognised\n"
        "pairs changed: 2, and 1 unseen likely by sampling alone\n"
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
        "pairs changed: 1, and 0 unseen likely by sampling alone\n"
    )


def test_each_prefix_is_printed_with_its_owners_name_and_member_where_the_owners_know_it():
    second = merge(
        FIRST, aggregate([_doc("10.1/a", "new.example", "2026-11-24"), _doc("10.3/c", "three.example", "2026-11-24")])
    )
    owners = {"10.1": ("crossref/7", "Harbour Lane Press"), "10.3": ("crossref/9", None)}
    assert render_changes(changes(FIRST, second), owners) == (
        "prefixes: +1 -0\n"
        "  + 10.3  crossref/9\n"
        "by prefix:\n"
        "  10.1  Harbour Lane Press (crossref/7)\n"
        "    new.example  +bad +recognised\n"
        "    old.example  not seen since 2026-11-01T08:00:00Z (likely sampling: not counted)\n"
        "  10.3  crossref/9\n"
        "    three.example  +bad +recognised\n"
        "by domain:\n"
        "  new.example\n"
        "    10.1  +bad +recognised  Harbour Lane Press (crossref/7)\n"
        "  old.example\n"
        "    10.1  not seen since 2026-11-01T08:00:00Z (likely sampling: not counted)  Harbour Lane Press (crossref/7)\n"
        "  three.example\n"
        "    10.3  +bad +recognised  crossref/9\n"
        "pairs changed: 2, and 1 unseen likely by sampling alone\n"
    )


def test_an_owners_name_holding_control_or_bidi_characters_is_printed_as_escapes():
    new = Artifacts(prefixes=frozenset({("10.1", "crossref")}))
    text = render_changes(changes(Artifacts(), new), {"10.1": ("crossref/7", "Evil\x1b[2J\u202e Press")})
    assert text.splitlines()[1] == "  + 10.1  Evil\\x1b[2J\\u202e Press (crossref/7)"


def test_prefix_owners_are_read_from_a_versions_members_for_the_prefixes_asked_only():
    members = [
        {"member": "crossref/7", "name": "Harbour Lane Press", "prefixes": [{"prefix": "10.1", "dois": 4}]},
        {"member": "crossref/8", "name": None, "prefixes": [{"prefix": "10.1", "dois": 1}, {"prefix": "10.2"}]},
        {"member": "crossref/9", "name": "Unasked", "prefixes": [{"prefix": "10.9", "dois": 9}]},
    ]
    assert prefix_owners(members, {"10.1", "10.2"}) == {
        "10.1": ("crossref/7", "Harbour Lane Press"),
        "10.2": ("crossref/8", None),
    }


def test_prefix_owners_skip_what_a_members_file_from_elsewhere_holds_in_the_wrong_shape():
    members = [
        {
            "member": "crossref/7",
            "name": ["x"],
            "prefixes": [{"prefix": "10.1", "dois": "many"}, "10.2", {"prefix": 7}],
        },
        {"member": "crossref/8", "name": "Eight", "prefixes": {"prefix": "10.2"}},
    ]
    assert prefix_owners(members, {"10.1", "10.2"}) == {"10.1": ("crossref/7", None)}


def _two_domains(b_dois, b_last):
    """Prefix 10.1 on a.example (5 DOIs, last seen on the 1st) and b.example (b_dois, last seen b_last)."""
    return Artifacts(
        prefixes=frozenset({("10.1", "crossref")}),
        recognised=frozenset({("a.example", "10.1"), ("b.example", "10.1")}),
        ends=frozenset({("a.example", "10.1", "page", 5), ("b.example", "10.1", "page", b_dois)}),
        seen=frozenset(
            {("10.1", "a.example", "2026-11-01", "2026-11-01"), ("10.1", "b.example", "2026-11-01", b_last)}
        ),
    )


def test_a_pair_unseen_after_too_few_draws_of_its_prefix_is_listed_but_not_news():
    found = changes(_two_domains(5, "2026-11-01"), _two_domains(6, "2026-11-02"))
    assert [(row["domain"], row["missed"], row["news"]) for row in found["pairs"]] == [("a.example", 0.5, False)]


def test_a_pair_unseen_after_enough_draws_that_it_would_have_been_met_is_news():
    found = changes(_two_domains(5, "2026-11-01"), _two_domains(35, "2026-11-02"))
    assert [(row["domain"], row["news"]) for row in found["pairs"]] == [("a.example", True)]


def test_the_diff_text_marks_unseen_pairs_left_out_of_the_count():
    text = render_changes(changes(_two_domains(5, "2026-11-01"), _two_domains(6, "2026-11-02")))
    assert text.splitlines()[-3:] == [
        "  a.example",
        "    10.1  not seen since 2026-11-01 (likely sampling: not counted)",
        "pairs changed: 0, and 1 unseen likely by sampling alone",
    ]
