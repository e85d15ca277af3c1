"""The project's Scrapy add-on: every component's setting changes in one declared order, then the Config built once.

Scrapy runs an add-on's `update_settings` just before the settings freeze, after the spider's `custom_settings`. The
LANDING_* settings are read there, once, into the crawl's `Config`; the spider's `setting_changes` (each a
`change(settings, cfg)` that sets Scrapy's own settings from it, never a LANDING_* one) run in their declared order;
and the Config is kept as `crawler.landing_config`, which `landing.config.of(crawler)` hands to every component.
"""

from landing import config


class Landing:
    """The add-on (ADDONS in landing/settings.py)."""

    def __init__(self, crawler):
        self.crawler = crawler

    @classmethod
    def from_crawler(cls, crawler):
        return cls(crawler)

    def update_settings(self, settings) -> None:
        """Read the LANDING_* settings into the crawl's Config, then apply the spider's setting changes with it."""
        cfg = config.Config.from_settings(settings)
        for change in getattr(self.crawler.spidercls, "setting_changes", ()):
            change(settings, cfg)
        self.crawler.landing_config = cfg

    def __repr__(self):  # as Scrapy's "Enabled addons" line shows it
        return "landing.addon.Landing"
