"""Labelled inputs for `scrapy match --evaluate FILE`: (input, expected DOI) pairs read from a URL/DOI vectors file
(JSON lines) or a landing-page corpus manifest (manifest.csv, or its folder); docs/matching.md "Accuracy"."""

import csv
import io
import json
from dataclasses import dataclass
from pathlib import Path

MANIFEST = "manifest.csv"


class LabelledError(ValueError):
    """A labelled file that cannot be read: the message names the file and, where it can, the line."""


@dataclass(frozen=True)
class Labelled:
    """The inputs to match, each with its expected DOI (bare, lower case; None: no DOI is right), and how many rows
    named no input (a manifest row without a page URL), which are not matched."""

    pairs: tuple[tuple[str, str | None], ...]
    skipped: int = 0


def _input(text: str) -> str:
    """An input as an input file's line would hold it: whitespace runs (line breaks included) as one space."""
    return " ".join(text.split())


def _doi(value) -> str | None:
    return (value.strip().lower() or None) if isinstance(value, str) else None


def from_vectors(lines, name: str = "vectors") -> Labelled:
    """Pairs from JSON lines, one object each: `url` the input, `doi` the expected DOI (null or absent: none); other
    keys are ignored, blank lines skipped. A line that is no such object is a LabelledError naming it.

    >>> from_vectors(['{"url": " 10.1006/JMBI.1998.2354 ", "doi": "10.1006/JMBI.1998.2354", "kind": "doi-text"}',
    ...               '', '{"url": "https://example.org/about", "doi": null}']).pairs
    (('10.1006/JMBI.1998.2354', '10.1006/jmbi.1998.2354'), ('https://example.org/about', None))
    >>> from_vectors(['{"doi": "10.1234/x"}'], "v.jsonl")
    Traceback (most recent call last):
    landing.match.labelled.LabelledError: v.jsonl:1: expected a JSON object with a string `url`
    """
    pairs, skipped = [], 0
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as error:
            raise LabelledError(f"{name}:{number}: not JSON ({error.msg}): expected one object a line") from None
        if not isinstance(row, dict) or not isinstance(row.get("url"), str):
            raise LabelledError(f"{name}:{number}: expected a JSON object with a string `url`")
        if not isinstance(row.get("doi"), str | None):
            raise LabelledError(f"{name}:{number}: `doi` is a string or null, not {row['doi']!r}")
        if text := _input(row["url"]):
            pairs.append((text, _doi(row.get("doi"))))
        else:
            skipped += 1
    return Labelled(tuple(pairs), skipped)


def from_manifest(text: str, name: str = MANIFEST) -> Labelled:
    """Pairs from a landing-page corpus manifest (CSV with `doi` and `page_url` columns): the page URL is the input,
    the DOI expected (empty: none); rows without a page URL are skipped and counted.

    >>> labelled = from_manifest("file,doi,page_url\\na.html,10.1234/ABC,https://example.org/a\\n"
    ...                          "b.html,,https://example.org/b\\nc.html,10.1234/c,\\n")
    >>> labelled.pairs, labelled.skipped
    ((('https://example.org/a', '10.1234/abc'), ('https://example.org/b', None)), 1)
    >>> from_manifest("file,url\\na.html,https://example.org/a\\n", "m.csv")
    Traceback (most recent call last):
    landing.match.labelled.LabelledError: m.csv: a manifest needs the columns doi and page_url; it has file, url
    """
    rows = csv.DictReader(io.StringIO(text))
    if not {"doi", "page_url"} <= set(rows.fieldnames or ()):
        have = ", ".join(rows.fieldnames or ()) or "none"
        raise LabelledError(f"{name}: a manifest needs the columns doi and page_url; it has {have}")
    pairs, skipped = [], 0
    try:
        for row in rows:
            if page := _input(row.get("page_url") or ""):
                pairs.append((page, _doi(row.get("doi"))))
            else:
                skipped += 1
    except csv.Error as error:
        raise LabelledError(f"{name}:{rows.line_num}: not CSV ({error})") from None
    return Labelled(tuple(pairs), skipped)


def read_labelled(path) -> Labelled:
    """A labelled file's pairs: a folder's manifest.csv or a `.csv` file as a manifest, any other file as vectors'
    JSON lines. A file that is missing, not UTF-8, malformed or without a single input is a LabelledError."""
    path = Path(path)
    if path.is_dir():
        path = path / MANIFEST
    try:
        text = path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise LabelledError(f"{path}: no such file (give a vectors .jsonl, a {MANIFEST} or its folder)") from None
    except OSError as error:
        raise LabelledError(f"{path}: cannot read it: {error.strerror}") from None
    except UnicodeDecodeError as error:
        raise LabelledError(f"{path}: not UTF-8 (byte {error.start})") from None
    if path.suffix.lower() == ".csv":
        labelled = from_manifest(text, str(path))
    else:
        labelled = from_vectors(text.splitlines(), str(path))
    if not labelled.pairs:
        raise LabelledError(f"{path}: no labelled input in it")
    return labelled
