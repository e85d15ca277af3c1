"""Opening the configured stores for a command: a bad setting is a usage error (exit 2), not a traceback.

A helper module, not a command: it defines no ScrapyCommand, so `scrapy` lists nothing for it.
"""

from scrapy.exceptions import UsageError

from landing.stores import StoreError, docs_from, open_blobs


def docs_of(settings):
    try:
        return docs_from(settings)
    except StoreError as error:
        raise UsageError(str(error), print_help=False) from None


def blobs_of(settings):
    try:
        return open_blobs(settings.get("LANDING_BLOBS"))
    except StoreError as error:
        raise UsageError(str(error), print_help=False) from None
