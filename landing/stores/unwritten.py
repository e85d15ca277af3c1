"""Documents the store refused, saved as JSON lines ({"kind", "id", "doc"}) and loaded back by `scrapy load`."""

import json
import os
from collections.abc import Iterable, Iterator
from pathlib import Path


def save(path: Path, rows: Iterable[tuple[str, str, str]]) -> int:
    """Write (kind, id, JSON text) rows to a new file, atomically; returns how many."""
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f".{path.name}.partial")
    count = 0
    with open(partial, "w", encoding="utf-8") as out:
        for kind, doc_id, text in rows:
            # The document's JSON text goes in as it is: it was checked when it was put.
            out.write(f'{{"kind":{json.dumps(kind)},"id":{json.dumps(doc_id, ensure_ascii=False)},"doc":{text}}}\n')
            count += 1
        out.flush()
        os.fsync(out.fileno())
    os.replace(partial, path)
    return count


def read(lines: Iterable[str]) -> Iterator[tuple[int, tuple[str, str, dict] | str]]:
    """(line number, (kind, id, doc)) for each line, or (line number, problem) for a line that is not one."""
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except ValueError as error:
            yield number, f"not JSON ({error})"
            continue
        if (
            not isinstance(row, dict)
            or not isinstance(row.get("doc"), dict)
            or not isinstance(row.get("kind"), str)
            or not isinstance(row.get("id"), str)
        ):
            yield number, 'not a {"kind": ..., "id": ..., "doc": {...}} line'
            continue
        yield number, (row["kind"], row["id"], row["doc"])
