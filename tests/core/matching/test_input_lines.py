"""Inputs as bytes read one way on every path, POST lines read into their questions or their own errors, and answers
written as JSON that always encodes."""

import json

import pytest

from landing.core.matching.input_lines import StreamInput, dumps, read_line, text_of, utf8


@pytest.mark.parametrize(
    ("raw", "text"),
    [
        (b"\xff\xfe\xfd", "\ufffd\ufffd\ufffd"),  # never UTF-16 for its byte-order mark
        (b"\xfe\xff\x001", "\ufffd\ufffd\x001"),
        (b"\xef\xbb\xbf10.1234/x", "10.1234/x"),
        (b"10.1234/x\xef\xbb\xbf", "10.1234/x\ufeff"),  # a BOM only at the start
        (b"\xed\xa0\x80", "\ufffd\ufffd\ufffd"),  # a surrogate spelt in UTF-8 is not UTF-8
        (b"caf\xc3\xa9 10.1234/x", "café 10.1234/x"),
    ],
)
def test_bytes_are_read_as_utf8_bad_bytes_as_replacement_characters_and_a_leading_bom_dropped(raw, text):
    assert text_of(raw) == text


def test_a_line_with_a_byte_order_mark_of_utf16_is_not_json_rather_than_utf16():
    assert read_line(b"\xff\xfe\xfd", 100) == {
        "error": "not JSON (Expecting value: line 1 column 1 (char 0))",
        "status": 400,
    }


def test_a_line_of_invalid_utf8_is_read_with_replacement_characters_as_get_and_scrapy_match_read_it():
    assert read_line(b'"\xff10.1234/x"', 100) == StreamInput("\ufffd10.1234/x")


def test_a_line_starting_with_a_utf8_bom_is_read_without_it():
    assert read_line(b'\xef\xbb\xbf{"q": "10.1234/x", "fetch": "none"}', 100) == StreamInput("10.1234/x", "none")


@pytest.mark.parametrize("depth", [1000, 3000, 100_000])
def test_json_nested_deeper_than_the_parser_goes_is_a_line_error_not_a_failure(depth):
    assert read_line(b"[" * depth + b"]" * depth, 100) == {"error": "not JSON (nested too deep)", "status": 400}


@pytest.mark.parametrize(
    ("line", "name"),
    [(b'"\\udc80 10.1234/x"', "q"), (b'{"q": "10.1234/x", "format": "event", "subj": "http://a.b/\\ud800"}', "subj")],
)
def test_a_lone_surrogate_in_a_line_is_its_error_naming_the_field(line, name):
    read = read_line(line, 100)
    assert (read["status"], read["error"].split(" holds ")[0]) == (400, name)


@pytest.mark.parametrize(
    "line", [b"42", b"null", b"true", b"[]", b'["10.1234/x"]', b"{}", b'{"q": 5}', b'{"q": ["x"]}', b'"  "']
)
def test_json_that_is_not_a_string_or_an_object_with_a_string_q_is_a_line_error(line):
    assert read_line(line, 100) == {"error": 'give a string, or {"q": string}', "status": 400}


@pytest.mark.parametrize(
    ("line", "start"),
    [
        (b'{"q": "10.1234/x", "fetch": ["none"]}', "fetch=['none']"),
        (b'{"q": "10.1234/x", "fetch": {"a": 1}}', "fetch={'a': 1}"),
        (b'{"q": "10.1234/x", "format": ["event"]}', "format=['event']"),
        (b'{"q": "10.1234/x", "format": "event", "subj": 7}', "subj=7"),
    ],
)
def test_fields_of_the_wrong_type_are_line_errors_naming_them(line, start):
    read = read_line(line, 100)
    assert (read["status"], read["error"].startswith(start)) == (400, True)


def test_a_lines_own_fields_replace_the_requests():
    line = b'{"q": "10.1234/x", "fetch": "all", "format": "event", "subj": "https://blog.example.org/1"}'
    assert read_line(line, 100, "none") == StreamInput("10.1234/x", "all", "event", "https://blog.example.org/1")


def test_an_answer_echoing_a_lone_surrogate_encodes_with_it_escaped_and_reads_back_the_same():
    answer = {"input": "a\ud800b\udfff", "doi": None, "note": "café"}
    assert (json.loads(dumps(answer)), dumps(answer).decode("utf-8")) == (
        answer,
        '{"input":"a\\ud800b\\udfff","doi":null,"note":"café"}',
    )


def test_json_text_without_a_lone_surrogate_is_encoded_as_utf8_unchanged():
    assert utf8('{"q": "\\ud800 é 😀"}') == '{"q": "\\ud800 é 😀"}'.encode()


def test_an_answer_is_written_byte_for_byte_as_the_standard_librarys_compact_json_whatever_its_characters():
    texts = ["plain", 'a "quote" and a \\ back', "\n\r\t\b\f\x00\x1f\x7f", "café ☕ 😀", "\u2028\u2029", "\ufffd"]
    answer = {"input": "".join(texts), "pieces": texts, "doi": None, "requests": 3, "checks": ()}
    expected = json.dumps(answer, ensure_ascii=False, separators=(",", ":")).encode()
    assert dumps(answer) == expected
