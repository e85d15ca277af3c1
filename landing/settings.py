"""Scrapy settings of the landing project. Every LANDING_* setting is documented here, once, with its default."""

BOT_NAME = "landing"
SPIDER_MODULES = ["landing.spiders"]
NEWSPIDER_MODULE = "landing.spiders"
COMMANDS_MODULE = "landing.commands"

# LANDING_SANDBOX: URL of a running sandbox (`scrapy sandbox serve`), e.g. http://127.0.0.1:8700.
# When set, every request the crawler makes (spider requests, redirects, robots.txt) goes through it as
# an HTTP proxy, and the API and resolver endpoints below switch to plain http. Default: unset (real web).
LANDING_SANDBOX = None

# Endpoints, so that the same code runs against the real web or a sandbox.
LANDING_CROSSREF_API = "https://api.crossref.org"
LANDING_DATACITE_API = "https://api.datacite.org"
LANDING_DOI_RESOLVER = "https://doi.org"

DOWNLOADER_MIDDLEWARES = {
    # Before HttpProxyMiddleware (750), so the proxy it sets is the one used.
    "landing.middlewares.SandboxProxyMiddleware": 740,
}

ROBOTSTXT_OBEY = True
USER_AGENT = "landing/0.1 (+https://github.com/landing; scholarly landing-page sampler)"
REQUEST_FINGERPRINTER_IMPLEMENTATION = "2.7"
TWISTED_REACTOR = "twisted.internet.asyncioreactor.AsyncioSelectorReactor"
FEED_EXPORT_ENCODING = "utf-8"
