"""landing.core.web.labels: a label from the outside world printed so that it cannot act on a terminal or a page."""

from landing.core.web.labels import printable


def test_control_characters_are_shown_as_escapes():
    assert printable("a\x1b[2Jb\nc\x00d\x7f") == "a\\x1b[2Jb\\x0ac\\x00d\\x7f"


def test_bidi_overrides_and_invisible_format_characters_are_shown_as_escapes():
    assert printable("a\u202ecred\u200b.example\u2029") == "a\\u202ecred\\u200b.example\\u2029"


def test_characters_outside_the_basic_plane_that_are_unassigned_or_tags_are_shown_as_escapes():
    assert printable("a\U000e0041\U0010fffdb") == "a\\U000e0041\\U0010fffdb"


def test_printable_text_is_left_alone_non_ascii_letters_included():
    assert printable("bücher.example 10.1371 crossref/340 $a__b$") == "bücher.example 10.1371 crossref/340 $a__b$"
