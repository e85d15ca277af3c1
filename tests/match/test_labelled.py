"""landing.match.labelled: the labelled inputs `scrapy match --evaluate FILE` reads, and the files it refuses."""

import json

import pytest

from landing.match.labelled import Labelled, LabelledError, read_labelled

MANIFEST = (
    "file,doi,page_url,notes\n"
    "pages/001.html,10.3402/IJCH.v71i0.18594,http://www.circumpolarhealthjournal.net/ijch/article/view/18594,a\n"
    "pages/008.html,10.1021/acscombsci.5b00087,,captured without its URL\n"
    'pages/018.html,,https://theses.hal.science/tel-02083632,"a page of no DOI, with a comma"\n'
)


def test_vectors_give_the_url_as_input_and_the_doi_lower_cased_as_expected_other_keys_ignored(tmp_path):
    rows = [
        {"url": "10.1007/S11739-017-1643-7?utm_source=twitter.com", "doi": "10.1007/S11739-017-1643-7", "kind": "x"},
        {"url": "https://example.org/about", "doi": None, "kind": "no-doi", "decoys": ["10.1234/a"]},
        {"url": "https://example.org/contact", "kind": "no-doi"},
    ]
    path = tmp_path / "dev.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in rows) + "\n")
    assert read_labelled(path) == Labelled(
        (
            ("10.1007/S11739-017-1643-7?utm_source=twitter.com", "10.1007/s11739-017-1643-7"),
            ("https://example.org/about", None),
            ("https://example.org/contact", None),
        )
    )


def test_a_vector_spread_over_lines_is_one_input_with_single_spaces(tmp_path):
    path = tmp_path / "dev.jsonl"
    path.write_text(json.dumps({"url": "  see\nhttps://doi.org/10.1234/abc\t now ", "doi": "10.1234/abc"}) + "\n")
    assert read_labelled(path).pairs == (("see https://doi.org/10.1234/abc now", "10.1234/abc"),)


def test_a_manifest_gives_page_urls_as_inputs_an_empty_doi_as_none_and_counts_rows_without_a_url(tmp_path):
    (tmp_path / "manifest.csv").write_text(MANIFEST)
    expected = Labelled(
        (
            ("http://www.circumpolarhealthjournal.net/ijch/article/view/18594", "10.3402/ijch.v71i0.18594"),
            ("https://theses.hal.science/tel-02083632", None),
        ),
        skipped=1,
    )
    assert (read_labelled(tmp_path), read_labelled(tmp_path / "manifest.csv")) == (expected, expected)


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("dev.jsonl", '{"url": "https://example.org/a"}\n[1, 2]\n', "dev.jsonl:2: expected a JSON object"),
        ("dev.jsonl", '{"url": "https://example.org/a", "doi": 10.1234}\n', "dev.jsonl:1: `doi` is a string or null"),
        ("dev.jsonl", "https://example.org/a\n", "dev.jsonl:1: not JSON"),
        ("dev.jsonl", "\n\n", "dev.jsonl: no labelled input in it"),
        ("pages.csv", "file,url\na.html,https://example.org/a\n", "a manifest needs the columns doi and page_url"),
        ("missing.jsonl", None, "missing.jsonl: no such file"),
    ],
)
def test_a_file_that_is_no_labelled_data_is_an_error_naming_it(tmp_path, name, content, message):
    if content is not None:
        (tmp_path / name).write_text(content)
    with pytest.raises(LabelledError, match=message):
        read_labelled(tmp_path / name)


def test_a_file_not_in_utf8_is_an_error_not_a_traceback(tmp_path):
    (tmp_path / "dev.jsonl").write_bytes(b'{"url": "https://example.org/caf\xe9"}\n')
    with pytest.raises(LabelledError, match="not UTF-8"):
        read_labelled(tmp_path / "dev.jsonl")


def test_a_folder_without_a_manifest_is_an_error_naming_the_manifest(tmp_path):
    with pytest.raises(LabelledError, match="manifest.csv: no such file"):
        read_labelled(tmp_path)
