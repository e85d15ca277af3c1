"""content_hash names blobs by their SHA-256."""

from landing.core.pages.documents import content_hash


def test_content_hash_is_lower_case_sha256_hex():
    assert content_hash(b"") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    assert content_hash(b"abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
