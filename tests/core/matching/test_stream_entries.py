"""An input entry read into what it asks, or the error result it gets; the artifact version a result names."""

from landing.core.matching.stream_entries import StreamInput, read_entry, result_version, resumed_at


def test_a_fetch_that_is_not_utf8_is_read_as_every_input_is_and_named_in_its_error():
    assert read_entry({b"q": b"10.1234/x", b"fetch": b"\xff"}, 100) == {
        "error": "fetch='\ufffd': use none, known or all",
        "status": 400,
    }


def test_a_q_that_is_not_utf8_is_read_with_a_replacement_character_for_each_bad_byte_and_a_bom_dropped():
    assert read_entry({b"q": b"\xef\xbb\xbf\xff10.1234/x"}, 100) == StreamInput("\ufffd10.1234/x", "known")


def test_an_input_of_exactly_the_limit_is_answered():
    assert read_entry({b"q": "é" * 100}, 100) == StreamInput("é" * 100, "known")


def test_the_version_of_free_text_is_the_first_matched_piece():
    result = {
        "evidence": [],
        "matches": [
            {"evidence": [{"step": "doi-literal", "outcome": "not-found"}]},
            {"evidence": [{"step": "artifact", "outcome": "v2"}]},
        ],
    }
    assert result_version(result) == "v2"


def test_a_format_that_is_neither_flat_nor_event_gets_an_error_naming_both():
    assert read_entry({b"q": b"10.1234/x", b"format": b"xml"}, 100) == {
        "error": "format='xml': use flat or event",
        "status": 400,
    }


def test_a_citing_page_that_is_not_an_http_url_gets_an_error_naming_it():
    assert read_entry({b"q": b"10.1234/x", b"format": b"event", b"subj": b"blog.example.org"}, 100) == {
        "error": "subj='blog.example.org': give the citing page's http(s) URL",
        "status": 400,
    }


def test_a_lost_group_starts_just_before_the_first_unanswered_entry_skipping_those_answered_after_it():
    answered = ["5-0", "6-0", "6-2", "7-0"]
    assert resumed_at(answered, ["5-0", "6-0", "6-1", "6-2", "7-0"]) == ("6-0", frozenset({"6-2", "7-0"}))


def test_a_lost_group_whose_every_named_input_was_answered_starts_after_the_newest():
    assert resumed_at(["9-0", "10-0", "8-3"], ["8-3", "9-0", "10-0"]) == ("10-0", frozenset())
