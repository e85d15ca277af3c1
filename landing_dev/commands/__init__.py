"""Scrapy commands for development, registered through the `scrapy.commands` entry points of the landing-dev
distribution (dev/pyproject.toml), so that the Scrapyd egg, which ships landing/ alone, has none."""
