"""`scrapy load FILE...` puts saved documents into the configured store and names every line it skips."""

from landing.stores import open_docs, unwritten
from tests.sampler.crawling import Stores


def test_saved_documents_are_loaded_into_the_store(tmp_path):
    saved = tmp_path / "docs.jsonl"
    unwritten.save(
        saved, [("pid", "10.1/a", '{"pid/doi":"10.1/a"}'), ("analysis", "10.1/a http 2026-11-22", '{"x":[1]}')]
    )
    done = Stores(tmp_path).scrapy("load", str(saved))
    assert (done.returncode, done.stdout, done.stderr) == (0, "load: 2 documents loaded\n", "")
    with open_docs(f"sqlite:///{tmp_path / 'landing.db'}") as docs:
        assert (docs.get("pid", "10.1/a"), docs.get("analysis", "10.1/a http 2026-11-22")) == (
            {"pid/doi": "10.1/a"},
            {"x": [1]},
        )


def test_bad_lines_are_skipped_named_and_exit_1(tmp_path):
    saved = tmp_path / "docs.jsonl"
    saved.write_text('{"kind":"pid","id":"10.1/a","doc":{}}\nnot json\n\n{"kind":"Pid","id":"x","doc":{}}\n[1]\n')
    done = Stores(tmp_path).scrapy("load", str(saved))
    assert (done.returncode, done.stdout) == (1, "load: 1 documents loaded, 3 lines skipped\n")
    assert done.stderr.splitlines() == [
        f"load: {saved}:2: not JSON (Expecting value: line 1 column 1 (char 0)); skipped",
        f"load: {saved}:4: bad document kind 'Pid': expected a short lower-case name such as 'pid'; skipped",
        f'load: {saved}:5: not a {{"kind": ..., "id": ..., "doc": {{...}}}} line; skipped',
    ]


def test_a_missing_file_is_a_usage_error(tmp_path):
    done = Stores(tmp_path).scrapy("load", str(tmp_path / "missing.jsonl"))
    assert done.returncode == 2
    assert f"cannot read {tmp_path / 'missing.jsonl'}: No such file or directory" in done.stderr
    assert "Traceback" not in done.stderr


def test_save_writes_one_line_per_document_and_leaves_no_partial_file(tmp_path):
    path = tmp_path / "deep" / "docs.jsonl"
    assert unwritten.save(path, [("pid", "10.1/ü", '{"a":"ü"}')]) == 1
    assert (path.read_text("utf-8"), sorted(p.name for p in path.parent.iterdir())) == (
        '{"kind":"pid","id":"10.1/ü","doc":{"a":"ü"}}\n',
        ["docs.jsonl"],
    )
