"""Scrapy commands of the checkout only, registered through the `scrapy.commands` entry points of
landing_dev-0.dist-info (beside landing_dev/), so that the Scrapyd egg, which ships landing/ alone, has none."""
