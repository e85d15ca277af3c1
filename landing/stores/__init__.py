"""Stores chosen by URL-like settings: LANDING_DOCS for documents, LANDING_BLOBS for blobs."""

from urllib.parse import urlsplit

from landing.stores.base import BlobStore, DocStore, StoreError
from landing.stores.file_blobs import FileBlobStore
from landing.stores.sqlite import SqliteDocStore

__all__ = ["BlobStore", "DocStore", "StoreError", "docs_from", "open_blobs", "open_docs"]

DOC_FORMS = "sqlite:///relative/path.db, sqlite:////absolute/path.db or http(s)://elasticsearch-host:9200"
BLOB_FORMS = "file://relative/dir, file:///absolute/dir or s3://bucket/prefix"


def _fail(setting: str, url, problem: str, forms: str):
    # Callers print str(error): the message alone must tell a user what to type instead.
    raise StoreError(f"{setting}={_shown(url)!r}: {problem}; use {forms}")


def _split(setting: str, url, forms: str) -> tuple[str, str]:
    scheme, sep, rest = url.strip().partition("://") if isinstance(url, str) else ("", "", "")
    if not sep or not scheme:
        _fail(setting, url, "not a URL", forms)
    if "?" in rest or "#" in rest:
        _fail(setting, url, "options in the URL (? or #) are not supported", forms)
    return scheme.lower(), rest


def _shown(url: str) -> str:
    # A URL with a password in it is shown without the password.
    if not isinstance(url, str) or "@" not in url:
        return url
    try:
        parts = urlsplit(url.strip())
        return url.replace(f":{parts.password}@", ":***@") if parts.password else url
    except ValueError:
        return url.split("://", 1)[0] + "://***@" + url.rsplit("@", 1)[1]


def docs_from(config, **options) -> DocStore:
    """The document store a landing.config.Config names: LANDING_DOCS, its batches, and LANDING_DOCS_* for
    Elasticsearch; `options` over them."""
    return open_docs(config.docs, **docs_options(config, **options))


def docs_options(config, **options) -> dict:
    """The options `docs_from` opens LANDING_DOCS with (plain values: a child process can be given them)."""
    options = {"batch_docs": config.docs_batch_docs, "batch_seconds": config.docs_batch_seconds, **options}
    if _split("LANDING_DOCS", config.docs, DOC_FORMS)[0] in ("http", "https"):
        from landing.stores.elastic import elastic_options

        options = {**elastic_options(config), **options}
    return options


def open_docs(url: str, **options) -> DocStore:
    """The document store a LANDING_DOCS value names; `options` go to the store (batch_docs, scan_chunk...)."""
    setting = "LANDING_DOCS"
    scheme, rest = _split(setting, url, DOC_FORMS)
    if scheme in ("http", "https"):
        parts = urlsplit(url.strip())
        try:
            parts.port  # noqa: B018 raises for a port that is not a number
        except ValueError:
            _fail(setting, url, "the port is not a number", DOC_FORMS)
        if not parts.hostname:
            _fail(setting, url, "no host named", DOC_FORMS)
        from landing.stores.elastic import ElasticDocStore  # the client is imported only by those who use it

        try:
            return ElasticDocStore(url.strip(), **options)
        except StoreError as error:
            raise StoreError(f"{setting}={_shown(url)!r}: {error}") from None
    if scheme != "sqlite":
        _fail(setting, url, f"{scheme}:// is not a document store", DOC_FORMS)
    if not rest.startswith("/"):
        _fail(setting, url, "three slashes before a relative path, four before an absolute one", DOC_FORMS)
    path = rest[1:]
    if not path or path.endswith("/"):
        _fail(setting, url, "no database file named", DOC_FORMS)
    try:
        return SqliteDocStore(path, **options)
    except StoreError as error:
        raise StoreError(f"{setting}={url!r}: {error}") from None


def open_blobs(url: str, **options) -> BlobStore:
    """The blob store a LANDING_BLOBS value names; `options` go to the store (fsync...)."""
    setting = "LANDING_BLOBS"
    scheme, path = _split(setting, url, BLOB_FORMS)
    if scheme == "s3":
        bucket, _, prefix = path.partition("/")
        if not bucket:
            _fail(setting, url, "no bucket named", BLOB_FORMS)
        from landing.stores.s3 import S3BlobStore  # boto3 is imported only by those who use S3

        try:
            return S3BlobStore(bucket, prefix, **options)
        except StoreError as error:
            raise StoreError(f"{setting}={url!r}: {error}") from None
    if scheme != "file":
        _fail(setting, url, f"{scheme}:// is not a blob store", BLOB_FORMS)
    if not path:
        _fail(setting, url, "no directory named", BLOB_FORMS)
    try:
        return FileBlobStore(path, **options)
    except StoreError as error:
        raise StoreError(f"{setting}={url!r}: {error}") from None
