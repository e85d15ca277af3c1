"""The project's defaults for Scrapy's own settings, as a crawler gets them, and an operator's -s over them."""

from tests.crawl.project import crawler


def test_no_telnet_console_is_enabled_by_default():
    assert crawler().settings.getbool("TELNETCONSOLE_ENABLED") is False


def test_an_operator_who_sets_telnetconsole_enabled_gets_it_enabled():
    assert crawler(TELNETCONSOLE_ENABLED="True").settings.getbool("TELNETCONSOLE_ENABLED") is True
