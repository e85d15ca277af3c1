"""A command's Config and its stores: a bad setting is a usage error (exit 2), not a traceback.

A helper module, not a command: it defines no ScrapyCommand, so `scrapy` lists nothing for it.
"""

from scrapy.exceptions import UsageError

from landing import config
from landing.stores import StoreError, docs_from, open_blobs


def config_of(settings) -> config.Config:
    """The command's settings, checked (landing.config)."""
    try:
        return config.of_settings(settings)
    except config.SettingsError as error:
        raise UsageError(str(error), print_help=False) from None


def docs_of(settings):
    try:
        return docs_from(config_of(settings))
    except StoreError as error:
        raise UsageError(str(error), print_help=False) from None


def blobs_of(settings):
    try:
        return open_blobs(config_of(settings).blobs)
    except StoreError as error:
        raise UsageError(str(error), print_help=False) from None
