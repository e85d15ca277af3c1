"""landing.core.web.robots_policy: which requests robots.txt governs, for Scrapy's requests and Chromium's alike."""

from landing.core.web.robots_policy import RobotsPolicy

RESOLVER = frozenset({"doi.org", "dx.doi.org"})


def test_an_api_request_never_asks_robots_txt():
    assert (
        RobotsPolicy(obey=True, obey_resolver=True, resolver_hosts=RESOLVER).governs(
            "https://api.crossref.org/members", api=True
        )
        is False
    )


def test_a_publishers_page_asks_robots_txt_when_robotstxt_obey_says_so():
    assert RobotsPolicy(obey=True, resolver_hosts=RESOLVER).governs("https://pub.example/article/1") is True
    assert RobotsPolicy(obey=False, resolver_hosts=RESOLVER).governs("https://pub.example/article/1") is False


def test_a_resolver_hop_asks_robots_txt_only_under_obey_resolver():
    assert RobotsPolicy(obey=True, resolver_hosts=RESOLVER).governs("http://dx.doi.org/10.1/a") is False
    assert (
        RobotsPolicy(obey=True, obey_resolver=True, resolver_hosts=RESOLVER).governs("https://doi.org/10.1/a") is True
    )


def test_without_robotstxt_obey_not_even_the_resolver_asks():
    # Scrapy's RobotsTxtMiddleware is off altogether then, whatever LANDING_RESOLVER_ROBOTS says.
    assert (
        RobotsPolicy(obey=False, obey_resolver=True, resolver_hosts=RESOLVER).governs("https://doi.org/10.1/a") is False
    )


def test_only_http_and_https_have_a_robots_txt():
    policy = RobotsPolicy(obey=True, resolver_hosts=RESOLVER)
    assert [policy.governs(url) for url in ("data:,1", "about:blank", "ftp://pub.example/a")] == [False] * 3
