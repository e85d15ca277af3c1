"""The root logger held at LOG_LEVEL while a crawl runs."""

import logging

from scrapy import signals
from scrapy.utils.log import get_scrapy_root_handler


class LevelGate:
    """Scrapy's root handler drops records below LOG_LEVEL but leaves the root logger at NOTSET, so each redirect's
    and each response's debug line was still made into a record first, which showed in a profile of a crawl's CPU
    (bench/README.md "Figures behind choices in the code")."""

    def __init__(self):
        self.before = None

    @classmethod
    def from_crawler(cls, crawler):
        gate = cls()
        crawler.signals.connect(gate.raise_root, signal=signals.engine_started)
        crawler.signals.connect(gate.restore_root, signal=signals.engine_stopped)
        return gate

    def raise_root(self):
        handler = get_scrapy_root_handler()  # none when the caller configured logging itself: theirs to decide
        if handler is not None and logging.root.level < handler.level:
            self.before = logging.root.level
            logging.root.setLevel(handler.level)

    def restore_root(self):
        if self.before is not None:
            logging.root.setLevel(self.before)
            self.before = None
