"""The file blob store's layout on disk and its atomic writes."""

import os

import pytest

from landing.core.pages.documents import content_hash
from landing.stores.file_blobs import FileBlobStore

PAGE = b"<html>page</html>"
HASH = content_hash(PAGE)


def files_under(root):
    return sorted(str(path.relative_to(root)) for path in root.rglob("*") if path.is_file())


@pytest.fixture
def store(tmp_path):
    return FileBlobStore(tmp_path / "blobs")


def test_blobs_fan_out_by_the_first_two_characters_of_their_name(store):
    store.put(f"snapshot/{HASH}", PAGE)
    store.put(f"snapshot/{HASH}.json", b"{}")
    store.put("top", b"t")
    assert files_under(store.root) == [f"snapshot/{HASH[:2]}/{HASH}", f"snapshot/{HASH[:2]}/{HASH}.json", "to/top"]


def test_blob_files_are_created_with_the_processes_umask(store):
    store.put(f"snapshot/{HASH}", PAGE)
    umask = os.umask(0)
    os.umask(umask)
    assert store.path(f"snapshot/{HASH}").stat().st_mode & 0o777 == 0o666 & ~umask


def test_puts_leave_no_temporary_files(store):
    for n in range(20):
        data = str(n).encode()
        store.put(f"snapshot/{content_hash(data)}", data)
        store.put(f"snapshot/{content_hash(data)}", data)
    assert len(files_under(store.root)) == 20
    assert not [name for name in files_under(store.root) if "/." in name]


def test_fsync_writes_the_same_blob(tmp_path):
    store = FileBlobStore(tmp_path, fsync=True)
    assert store.put(f"snapshot/{HASH}", PAGE) is True
    assert store.get(f"snapshot/{HASH}") == PAGE


def test_a_write_that_dies_before_publishing_leaves_neither_blob_nor_temporary_file(store, monkeypatch):
    def crash(*args):
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "link", crash)
    with pytest.raises(KeyboardInterrupt):
        store.put(f"snapshot/{HASH}", PAGE)
    monkeypatch.undo()
    assert (store.exists(f"snapshot/{HASH}"), files_under(store.root)) == (False, [])
    assert store.put(f"snapshot/{HASH}", PAGE) is True


def test_a_temporary_file_left_by_a_crash_is_neither_listed_nor_read(store):
    fan = store.root / "snapshot" / HASH[:2]
    fan.mkdir(parents=True)
    (fan / f".{HASH}.0123456789ab.tmp").write_bytes(PAGE[:5])
    assert (list(store.keys()), store.exists(f"snapshot/{HASH}"), store.get(f"snapshot/{HASH}")) == ([], False, None)
    assert store.put(f"snapshot/{HASH}", PAGE) is True
    assert list(store.keys()) == [f"snapshot/{HASH}"]


def test_files_outside_their_fan_out_directory_are_not_keys(store):
    (store.root / "README").write_text("not a blob")
    (store.root / "snapshot" / "zz").mkdir(parents=True)
    (store.root / "snapshot" / "zz" / HASH).write_bytes(PAGE)
    assert list(store.keys()) == []


def test_a_blob_written_by_a_concurrent_writer_is_kept(store, monkeypatch):
    link = os.link

    def other_writer_first(source, target):
        with open(target, "xb") as other:
            other.write(b"the other writer's blob")
        link(source, target)

    monkeypatch.setattr(os, "link", other_writer_first)
    assert store.put(f"snapshot/{HASH}", PAGE) is False
    assert store.get(f"snapshot/{HASH}") == b"the other writer's blob"
    assert files_under(store.root) == [f"snapshot/{HASH[:2]}/{HASH}"]


def test_without_hard_links_a_put_falls_back_to_an_atomic_rename(store, monkeypatch):
    def no_links(*args):
        raise PermissionError(1, "Operation not permitted")

    monkeypatch.setattr(os, "link", no_links)
    assert store.put(f"snapshot/{HASH}", PAGE) is True
    assert (store.get(f"snapshot/{HASH}"), files_under(store.root)) == (PAGE, [f"snapshot/{HASH[:2]}/{HASH}"])
