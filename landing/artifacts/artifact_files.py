"""Artifact files on disk: versioned, additive exports and the latest copy at the top of a directory.

Layout: `<dir>/<file>` is the latest merged version; `<dir>/versions/<UTC stamp>[-N]/<file>` keeps each one, as
`<file>.gz` once retention compressed it (every reader here reads either).
"""

import fcntl
import gzip
import json
import os
import shutil
import tempfile
import zlib
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

from landing import clock
from landing.core.publishing.artifact_format import (
    BAD_CSV,
    DECISIONS_JSON,
    FILENAMES,
    GOOD_CSV,
    ArtifactError,
    parse,
    render,
)
from landing.core.publishing.artifact_sets import Artifacts, excluding, merge
from landing.core.publishing.changes import changes

ARTIFACT_MODE = 0o644
REQUIRED = (GOOD_CSV, BAD_CSV, DECISIONS_JSON)  # in every version ever exported
CHANGES = "changes.json"  # beside each version's files: what it changed since the version before it
GZ = ".gz"


def text_of(path: Path) -> str:
    """A file's UTF-8 text, gunzipped when its name ends in .gz; ArtifactError naming it when it is not UTF-8 or
    cannot be read."""
    try:
        if path.suffix == GZ:
            return gzip.decompress(path.read_bytes()).decode("utf-8")
        return path.read_text("utf-8")
    except (gzip.BadGzipFile, EOFError, zlib.error) as error:
        raise ArtifactError(path, f"not gzip ({error})") from None
    except UnicodeDecodeError as error:
        raise ArtifactError(path, f"not UTF-8 ({error.reason} at byte {error.start})") from None
    except OSError as error:
        raise ArtifactError(path, f"cannot be read ({error.strerror or error})") from None


def found_file(directory: Path, name: str) -> Path | None:
    """A version's file `name`, or its compressed `name.gz` (a plain one wins: a compression a crash interrupted);
    None when neither is there."""
    return next((path for path in (directory / name, directory / f"{name}{GZ}") if path.is_file()), None)


def _read(directory: Path) -> dict[str, str]:
    return {name: text_of(path) for name in FILENAMES if (path := found_file(directory, name))}


def _load(directory: Path) -> Artifacts:
    """The artifacts of the files in `directory`; ArtifactError naming the first one that cannot be read."""
    try:
        return parse(_read(directory))
    except ArtifactError as error:
        raise ArtifactError(directory / error.name, error.what) from None


def _write_atomically(path: Path, text: str) -> None:
    """Write to a temp file beside `path`, then os.replace, so readers never see half a file."""
    with replacing(path, binary=False) as handle:
        handle.write(text)


@contextmanager
def replacing(path: Path, binary: bool):
    """A handle on a temp file beside `path` that replaces it, synced, when the block ends well, and vanishes
    otherwise: readers never see half a file."""
    fd, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        # mkstemp makes the file 0600: artifacts are published (a web server, the Percolator's loader, another
        # user's cron job read them), so they get a plain file's rights.
        os.fchmod(fd, ARTIFACT_MODE)
        with os.fdopen(fd, "wb" if binary else "w", **({} if binary else {"encoding": "utf-8", "newline": ""})) as out:
            yield out
            out.flush()
            os.fsync(out.fileno())
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise


def _new_version_dir(versions: Path, now: datetime) -> Path:
    """Create a fresh version dir; mkdir is the claim, so same-second exports get -1, -2, ..."""
    # A naive `now` is taken as UTC already, not as local time.
    aware = now if now.tzinfo else now.replace(tzinfo=UTC)
    stamp = aware.astimezone(UTC).strftime("%Y%m%dT%H%M%SZ")
    versions.mkdir(parents=True, exist_ok=True)
    suffix = 0
    while True:
        candidate = versions / (stamp if suffix == 0 else f"{stamp}-{suffix}")
        try:
            candidate.mkdir()
            return candidate
        except FileExistsError:
            suffix += 1


def load_latest(directory) -> Artifacts:
    """The latest exported artifacts at the top of `directory` (empty if there are none)."""
    return _load(Path(directory))


def versions(directory) -> list[Path]:
    """The version directories under `directory`, oldest first (a same-second export's -N after its stamp)."""

    def order(path: Path):
        stamp, _, n = path.name.partition("-")
        return stamp, int(n) if n.isdigit() else 0

    found = Path(directory) / "versions"
    return sorted((p for p in found.iterdir() if p.is_dir()), key=order) if found.is_dir() else []


def load_version(path) -> Artifacts:
    """The artifacts of one version directory; ArtifactError when one of the files every version has is missing
    (read as empty, a version would seem to have lost every pair). The seen dates came later: older versions lack them.
    """
    path = Path(path)
    for name in REQUIRED:
        if found_file(path, name) is None:
            raise ArtifactError(path / name, "missing: this version cannot be read")
    return _load(path)


@contextmanager
def _locked(directory: Path):
    # Read-merge-write must be one step: two crawls closing at once would otherwise each merge into the
    # same latest copy, and the second swap would drop the first one's additions. flock is per host, and
    # unreliable on network file systems: several machines should not share one artifacts directory.
    with open(directory / ".lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def export(
    directory, artifacts: Artifacts, now: datetime | None = None, exclusions: frozenset[str] = frozenset()
) -> Path:
    """Merge `artifacts` into the latest version, excluded domains only followed (a domain excluded since an older
    version loses its trust there too), and write it as a new version and as the top-level copy."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    with _locked(directory):
        before, earlier = load_latest(directory), versions(directory)
        merged = excluding(merge(before, artifacts), exclusions)
        files = render(merged)
        version = _new_version_dir(directory / "versions", now or clock.now())
        for name, text in files.items():
            _write_atomically(version / name, text)
        found = {"from": earlier[-1].name if earlier else None, "to": version.name, **changes(before, merged)}
        _write_atomically(version / CHANGES, json.dumps(found, indent=1, sort_keys=True) + "\n")
        # Each top-level file is swapped atomically; between swaps a reader may mix the previous and new
        # versions, which is still consistent because versions only ever add entries.
        for name, text in files.items():
            _write_atomically(directory / name, text)
    return version


KEPT = (*FILENAMES, CHANGES)  # a version's own files: never removed, whatever retention removes beside them


def remove_beside(directory, names, parts) -> list[str]:
    """Delete these `parts` (names of files or folders beside a version's artifact files: its report, the report's
    data) of these versions (landing.core.continuous.retention chooses them), under the lock exports take; the
    versions something was deleted from. A version's artifact files and changes.json are never deleted (ValueError).

    Each part is first moved out of its version to a dot name at the top, so that no crash leaves half a folder in a
    version; a removal a crash interrupted (or a report thinning left) is finished by the next call."""
    if kept := sorted(set(parts) & set(KEPT)):
        raise ValueError(f"a version's own files are never removed: {', '.join(kept)}")
    if any(part in ("", ".", "..") or "/" in part for part in parts):
        raise ValueError(f"parts are names beside a version's files, not paths: {sorted(parts)}")
    directory = Path(directory)
    removed = []
    if not (directory / "versions").is_dir():
        return removed
    with _locked(directory):
        for left in directory.glob(".removing-*"):
            _remove(left)
        for name in names:
            version = directory / "versions" / name
            if name in ("", ".", "..") or "/" in name or not version.is_dir() or version.is_symlink():
                continue
            found = [part for part in parts if (version / part).exists() or (version / part).is_symlink()]
            for part in found:
                doomed = directory / f".removing-{name}-{part}"
                os.replace(version / part, doomed)
                _remove(doomed)
            if found:
                removed.append(name)
    return removed


def compress_versions(directory, names) -> list[str]:
    """Gzip these versions' artifact files in place (`<file>.gz`, byte for byte the same text; the plain file removed
    once the compressed one is synced), under the lock exports take; the versions something was compressed in.
    Their changes.json stays plain (small, and the report reads it)."""
    directory = Path(directory)
    compressed = []
    if not (directory / "versions").is_dir():
        return compressed
    with _locked(directory):
        for name in names:
            version = directory / "versions" / name
            if name in ("", ".", "..") or "/" in name or not version.is_dir() or version.is_symlink():
                continue
            plain = [version / file for file in FILENAMES if (version / file).is_file()]
            for path in plain:
                with replacing(path.with_name(f"{path.name}{GZ}"), binary=True) as out:
                    # No name or time in the header: the same file gives the same bytes.
                    with gzip.GzipFile(filename="", mode="wb", fileobj=out, mtime=0) as packed, open(path, "rb") as src:
                        shutil.copyfileobj(src, packed)
                path.unlink()
            if plain:
                compressed.append(name)
    return compressed


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    else:
        path.unlink(missing_ok=True)


def line_counts(directory) -> dict[str, int]:
    """Lines in each top-level artifact file (0 when missing), for summaries."""
    texts = _read(Path(directory))
    return {name: len(texts.get(name, "").splitlines()) for name in FILENAMES}
