"""landing.core.registries.names: owners' names as kept, keyed per kind of document, shown, and the latest of each owner's."""

from landing.core.registries import names
from landing.core.registries.names import UNKNOWN, Latest, Names, keyed, labelled, read


def test_names_keyed_for_a_kind_read_back_as_the_same_names():
    given = Names("Zenodo", "cern", "CERN")
    assert [read(kind, keyed(kind, given)) for kind in names.KEYS] == [given] * len(names.KEYS)


def test_a_document_written_before_names_reads_as_unknown():
    assert read("pid", {"pid/doi": "10.1/a"}) == UNKNOWN


def test_a_label_with_a_control_or_bidi_character_is_shown_escaped():
    assert labelled("crossref/1", "Evil\x1b[2J\u202ePress") == "Evil\\x1b[2J\\u202ePress (crossref/1)"


def test_latest_keeps_the_names_of_the_most_recent_stamp_whatever_the_order():
    one, two = Latest(), Latest()
    added = [("2026-11-01T00:00:00Z", Names("Old Press")), ("2026-11-09T00:00:00Z", Names("New Press"))]
    for stamp, given in added:
        one.add("crossref/1", stamp, given)
    for stamp, given in reversed(added):
        two.add("crossref/1", stamp, given)
    assert (one.of("crossref/1"), two.of("crossref/1")) == (Names("New Press"), Names("New Press"))


def test_latest_never_lets_a_document_without_names_hide_one_with_them():
    found = Latest()
    found.add("crossref/1", "2026-11-01T00:00:00Z", Names("Harbour Lane Press"))
    found.add("crossref/1", "2026-11-09T00:00:00Z", UNKNOWN)
    assert (found.of("crossref/1"), found.of("crossref/2")) == (Names("Harbour Lane Press"), UNKNOWN)


def test_latest_picks_one_of_two_names_of_one_stamp_whatever_the_order():
    a, b = Names("A Press"), Names("B Press")
    first, second = Latest(), Latest()
    for found, order in ((first, (a, b)), (second, (b, a))):
        for given in order:
            found.add("crossref/1", "2026-11-01T00:00:00Z", given)
    assert first.of("crossref/1") == second.of("crossref/1") == b
