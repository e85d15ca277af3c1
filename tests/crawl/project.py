"""The project's settings as a crawler for the crawl package's tests: each middleware is built as a crawl builds it."""

from scrapy.spiders import Spider
from scrapy.utils.test import get_crawler

import landing.settings

PROJECT = {name: getattr(landing.settings, name) for name in dir(landing.settings) if name.isupper()}


def crawler(**settings):
    """A crawler with the project's settings, these over them, and a spider attached."""
    made = get_crawler(settings_dict={**PROJECT, **settings})
    made.spider = Spider.from_crawler(made, name="test")
    return made
