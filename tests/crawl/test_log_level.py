"""landing.crawl.log_level: the root logger at the Scrapy handler's level while the engine runs, and back after."""

import logging

from scrapy.settings import Settings
from scrapy.utils.log import _uninstall_scrapy_root_handler, install_scrapy_root_handler

from landing.crawl.log_level import LevelGate


def test_the_level_gate_lifts_the_root_logger_to_the_scrapy_handlers_level_while_the_engine_runs():
    before = logging.root.level
    install_scrapy_root_handler(Settings({"LOG_LEVEL": "INFO"}))
    try:
        gate = LevelGate()
        gate.raise_root()
        assert (logging.root.level, logging.getLogger("scrapy.core.engine").isEnabledFor(logging.DEBUG)) == (
            logging.INFO,
            False,
        )
        gate.restore_root()
        assert logging.root.level == logging.NOTSET
    finally:
        _uninstall_scrapy_root_handler()
        logging.root.setLevel(before)


def test_the_level_gate_leaves_logging_alone_when_scrapy_installed_no_root_handler():
    before = logging.root.level
    logging.root.setLevel(logging.DEBUG)
    try:
        LevelGate().raise_root()
        assert logging.root.level == logging.DEBUG
    finally:
        logging.root.setLevel(before)
