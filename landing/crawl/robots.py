"""robots.txt: whether it applies to a request (the policy), and the parsers of the hosts met most recently."""

from scrapy.downloadermiddlewares.robotstxt import RobotsTxtMiddleware
from scrapy.utils.defer import maybe_deferred_to_future
from scrapy.utils.httpobj import urlparse_cached
from twisted.internet.defer import Deferred

from landing import config
from landing.core.web.recent import Recent
from landing.core.web.robots_policy import RobotsPolicy


def robots_policy(settings, cfg: config.Config) -> RobotsPolicy:
    """The crawl's robots.txt policy (landing.core.web.robots_policy), from ROBOTSTXT_OBEY and LANDING_RESOLVER_ROBOTS."""
    return RobotsPolicy(
        obey=settings.getbool("ROBOTSTXT_OBEY"),
        obey_resolver=cfg.resolver_robots == "obey",
        resolver_hosts=cfg.resolver_hosts,
    )


class RobotsPolicyMiddleware:
    """Decide per request whether robots.txt applies (landing.core.web.robots_policy), before RobotsTxtMiddleware (100) looks.

    Decided on every hop of a DOI's chain because a redirect copies the previous request's meta, flag included.
    """

    def __init__(self, policy: RobotsPolicy):
        self.policy = policy

    @classmethod
    def from_crawler(cls, crawler):
        return cls(robots_policy(crawler.settings, config.of(crawler)))

    def process_request(self, request, spider=None):
        api = bool(request.meta.get("landing_api"))
        # An API request, or a hop of a DOI's chain (sampler) or of a matcher fetch; robots.txt fetches are left alone.
        if api or "pid" in request.meta or request.meta.get("landing_chain"):
            request.meta["dont_obey_robotstxt"] = not self.policy.governs(request.url, api)


class RecentRobotsTxtMiddleware(RobotsTxtMiddleware):
    """Scrapy's RobotsTxtMiddleware, keeping the parsed robots.txt of the tuning.ROBOTS_CACHE most recent hosts.

    Scrapy's keeps every host's for the whole crawl; a full run meets tens of thousands of hosts, and a parsed
    robots.txt can weigh tens of kilobytes. A host met again after eviction has its robots.txt fetched again.
    """

    def __init__(self, crawler):
        super().__init__(crawler)
        self._parsers = recent_parsers(config.of(crawler).robots_cache)

    async def robot_parser(self, request):
        pending = self._parsers.get(urlparse_cached(request).netloc)
        if isinstance(pending, Deferred):
            # Scrapy awaits the host's one pending Deferred through Deferred.asFuture, whose callback returns None:
            # every request after the first that waits on a robots.txt in flight read None, "no robots.txt", and
            # was fetched however robots.txt ruled. Each waiter gets a Deferred of its own, passed the parser.
            own = Deferred()
            pending.addBoth(_relay(own))
            return await maybe_deferred_to_future(own)
        return await super().robot_parser(request)


def _relay(own):
    def relay(result):
        own.callback(result)
        return result  # on down the chain, for the next waiter

    return relay


def recent_parsers(size: int) -> Recent:
    """The parsers of the `size` hosts met most recently; a pending fetch (a Deferred) is awaited, never forgotten."""
    return Recent(size, keep=lambda parser: isinstance(parser, Deferred))
