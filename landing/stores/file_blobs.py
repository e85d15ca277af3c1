"""The default blob store: one file per blob under a root directory, written atomically."""

import os
import secrets
from pathlib import Path

from landing.stores.base import BlobStore
from landing.stores.checks import StoreError, describe


class FileBlobStore(BlobStore):
    """Key `a/b/<name>` lives at `<root>/a/b/<name[:2]>/<name>`, so no directory holds every hash.

    `fsync=True` also survives power loss, at the cost of a disk flush per blob.
    """

    def __init__(self, root, *, fsync: bool = False):
        self.root = Path(root)
        self.fsync = fsync
        # Without a flush a put is a few system calls on a local disk: cheaper inline than a hop to a thread.
        self.blocking = fsync
        self._made: set[Path] = set()  # fan-out directories known to exist (at most 256 per key prefix)
        try:
            self.root.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise StoreError(f"cannot use {self.root} as the blob directory: {describe(error)}") from None

    def __repr__(self):
        return f"FileBlobStore({str(self.root)!r})"

    def path(self, key: str) -> Path:
        """Where a (valid) key's blob lives."""
        *folders, name = key.split("/")
        return self.root.joinpath(*folders, name[:2], name)

    def _put(self, key, data):
        path = self.path(key)
        # No existence check first: the hard link below refuses an existing name anyway, and a crawl writes
        # new bodies far more often than it meets old ones. Directories are made once per store.
        # Dot names are never keys, so a temporary file left by a crash is never listed or read.
        temporary = path.with_name(f".{path.name}.{secrets.token_hex(6)}.tmp")
        try:
            self._write_new(temporary, data)
            try:
                # A hard link creates the name only if it is free: a concurrent writer's blob is never replaced.
                os.link(temporary, path)
            except FileExistsError:
                return False
            except OSError:
                # Some filesystems have no hard links; a rename is just as atomic, last writer wins.
                if path.is_file():
                    return False
                os.replace(temporary, path)
            return True
        finally:
            temporary.unlink(missing_ok=True)

    def _write_new(self, temporary: Path, data: bytes) -> None:
        if temporary.parent not in self._made:
            temporary.parent.mkdir(parents=True, exist_ok=True)
            self._made.add(temporary.parent)
        try:
            file = open(temporary, "xb")
        except FileNotFoundError:  # its directory was removed behind the store's back: make it again
            temporary.parent.mkdir(parents=True, exist_ok=True)
            file = open(temporary, "xb")
        with file:
            file.write(data)
            if self.fsync:
                file.flush()
                os.fsync(file.fileno())

    def _get(self, key):
        try:
            return self.path(key).read_bytes()
        except (FileNotFoundError, NotADirectoryError):
            return None

    def _exists(self, key):
        return self.path(key).is_file()

    def _keys(self, prefix):
        return (key for key, _ in self._walk(prefix))

    def _listing(self, prefix):
        for key, path in self._walk(prefix):
            try:
                yield key, path.stat().st_mtime
            except FileNotFoundError:  # deleted since it was listed
                continue

    def _delete(self, keys):
        for key in keys:
            path = self.path(key)
            try:
                path.unlink(missing_ok=True)
            except OSError as error:
                raise StoreError(f"cannot delete the blob {key!r}: {describe(error)}") from None

    def _walk(self, prefix):
        """(key, path) of every blob whose key starts with `prefix`, in key order."""
        folder = prefix.rpartition("/")[0]
        start = self.root.joinpath(*folder.split("/")) if folder else self.root
        # os.walk lists one directory at a time: memory stays flat whatever the number of blobs.
        for top, directories, files in os.walk(start):
            directories[:] = sorted(d for d in directories if not d.startswith("."))
            parts = Path(top).relative_to(self.root).parts
            if not parts:
                continue
            for name in sorted(files):
                # Only files in their own fan-out directory are blobs; temporary and stray files are not.
                if name.startswith(".") or parts[-1] != name[:2]:
                    continue
                key = "/".join((*parts[:-1], name))
                if key.startswith(prefix):
                    yield key, Path(top, name)
