"""Every scenario of the every-scenario world, as a client meets it through the proxy, hop by hop."""

import time
import urllib.robotparser
from urllib.parse import parse_qs, parse_qsl, urlencode, urlsplit

import pytest

from landing_dev.sandbox import scenarios
from landing_dev.sandbox.platforms import PLACEHOLDER_DOI
from tests.sandbox import reading
from tests.sandbox.client import REDIRECTS, follow, get, meta_refresh_target

TWO_MIB = 2 * 1024 * 1024


@pytest.fixture(scope="module")
def proxy(every_sandbox):
    return every_sandbox.proxy


def one(scenario_truth, scenario, index=0):
    return scenario_truth[scenario][index]


def test_every_scenario_has_dois_in_the_world(scenario_truth):
    assert {name: len(records) for name, records in scenario_truth.items()} == {name: 8 for name in scenarios.ALL}


def test_direct_resource_url_is_the_landing_page_with_200(proxy, scenario_truth):
    truth = one(scenario_truth, "direct")
    response = get(proxy, truth["resource_url"])
    assert truth["resource_url"] == truth["landing_url"]
    assert response.status == 200
    assert response.headers["Content-Type"].startswith("text/html")


def test_direct_page_states_its_doi_in_meta_tags(proxy, scenario_truth):
    truth = one(scenario_truth, "direct")
    tags = reading.meta_tags(reading.document(get(proxy, truth["landing_url"]).body))
    assert truth["doi"] in [reading.split_value(content)[1] for _, content in tags]


def test_http_to_https_answers_301_to_the_https_twin(proxy, scenario_truth):
    truth = one(scenario_truth, "http-to-https")
    assert truth["resource_url"].startswith("http://")
    response = get(proxy, truth["resource_url"])
    assert response.status == 301
    assert response.location == "https://" + truth["resource_url"][len("http://") :]
    assert get(proxy, response.location).status == 200


def test_multi_hop_chains_redirect_with_3xx_statuses_across_domains_to_a_200(proxy, scenario_truth):
    for truth in scenario_truth["multi-hop"]:
        chain = follow(proxy, truth["resource_url"], cookies=False)
        hosts = [urlsplit(url).hostname for url in chain.urls]
        assert len(chain.hops) >= 3
        assert set(chain.statuses[:-1]) <= set(REDIRECTS)
        assert chain.last.status == 200
        assert chain.last.url == truth["landing_url"]
        assert hosts[0] != hosts[-1]


def test_tracking_params_final_url_carries_utm_parameters(proxy, scenario_truth):
    truth = one(scenario_truth, "tracking-params")
    chain = follow(proxy, truth["resource_url"], cookies=False)
    query = parse_qs(urlsplit(chain.last.url).query)
    assert chain.last.status == 200
    assert {"utm_source", "utm_medium", "utm_campaign"} <= set(query)
    kept = [(k, v) for k, v in parse_qsl(urlsplit(chain.last.url).query) if not k.startswith("utm_")]
    untracked = urlsplit(chain.last.url)._replace(query=urlencode(kept, safe="/:;()")).geturl()
    assert untracked == truth["landing_url"]


def test_unauthorized_page_is_401_carrying_the_full_page(proxy, scenario_truth):
    truth = one(scenario_truth, "unauthorized-page")
    response = get(proxy, truth["resource_url"])
    assert response.status == 401
    assert b"<article>" in response.body
    assert truth["doi"] in [reading.split_value(c)[1] for _, c in reading.meta_tags(reading.document(response.body))]


def test_not_found_is_404(proxy, scenario_truth):
    assert get(proxy, one(scenario_truth, "not-found")["resource_url"]).status == 404


def test_gone_is_410(proxy, scenario_truth):
    assert get(proxy, one(scenario_truth, "gone")["resource_url"]).status == 410


def test_server_error_stays_500_on_every_try(proxy, scenario_truth):
    url = one(scenario_truth, "server-error")["resource_url"]
    assert [get(proxy, url).status for _ in range(4)] == [500, 500, 500, 500]


def test_server_error_burst_gives_503_twice_with_retry_after_then_200(fresh_every_sandbox, scenario_truth):
    url = one(scenario_truth, "server-error-burst")["resource_url"]
    answers = [get(fresh_every_sandbox.proxy, url) for _ in range(3)]
    assert [a.status for a in answers] == [503, 503, 200]
    assert [a.headers["Retry-After"] for a in answers[:2]] == ["1", "1"]


def test_rate_limited_gives_429_with_retry_after_then_200(fresh_every_sandbox, scenario_truth):
    url = one(scenario_truth, "rate-limited")["resource_url"]
    first, second = get(fresh_every_sandbox.proxy, url), get(fresh_every_sandbox.proxy, url)
    assert (first.status, first.headers["Retry-After"]) == (429, "1")
    assert second.status == 200


def _session_round(url):
    parts = urlsplit(url)
    return parts.path, parse_qs(parts.query).get("rc", [None])[0]


def test_cookie_wall_without_cookies_bounces_rc_0_to_10_then_cookie_absent(proxy, scenario_truth):
    truth = one(scenario_truth, "cookie-wall")
    chain = follow(proxy, truth["resource_url"], cookies=False)
    assert chain.urls[0] == truth["landing_url"]
    assert [_session_round(url) for url in chain.urls[1:12]] == [
        ("/action/getSharedSiteSession", str(rc)) for rc in range(11)
    ]
    assert urlsplit(chain.last.url).path == "/action/cookieAbsent"
    assert len(chain.hops) == 13
    assert set(chain.statuses[:-1]) == {302}


def test_cookie_wall_with_cookies_reaches_the_page_one_hop_after_the_session_hop(proxy, scenario_truth):
    truth = one(scenario_truth, "cookie-wall")
    chain = follow(proxy, truth["resource_url"], cookies=True)
    assert _session_round(chain.urls[1]) == ("/action/getSharedSiteSession", "0")
    assert chain.urls[2] == truth["landing_url"]
    assert chain.statuses == [302, 302, 200]


def test_js_redirect_page_has_window_location_and_no_article(proxy, scenario_truth):
    truth = one(scenario_truth, "js-redirect")
    response = get(proxy, truth["resource_url"])
    assert response.status == 200
    assert b"window.location" in response.body
    assert truth["landing_url"].encode() in response.body
    assert b"<article" not in response.body


def test_js_computed_page_never_spells_out_its_target(proxy, scenario_truth):
    truth = one(scenario_truth, "js-computed")
    response = get(proxy, truth["resource_url"])
    assert response.status == 200
    assert b"window.location" in response.body
    assert truth["landing_url"].encode() not in response.body
    assert b"<article" not in response.body


def test_meta_refresh_page_has_a_refresh_tag_to_the_landing_page(proxy, scenario_truth):
    truth = one(scenario_truth, "meta-refresh")
    response = get(proxy, truth["resource_url"])
    assert response.status == 200
    assert b'http-equiv="refresh"' in response.body
    assert meta_refresh_target(response) == truth["landing_url"]


def test_redirect_loop_alternates_between_two_urls_past_20_redirects(proxy, scenario_truth):
    chain = follow(proxy, one(scenario_truth, "redirect-loop")["resource_url"], cookies=False)
    assert chain.too_many_redirects
    assert len(chain.hops) == 21
    assert len(set(chain.urls)) == 2
    assert chain.urls[0] == chain.urls[2] != chain.urls[1]
    assert set(chain.statuses) == {302}


def test_long_chain_is_more_than_20_redirects_to_the_landing_page(proxy, scenario_truth):
    truth = one(scenario_truth, "long-chain")
    chain = follow(proxy, truth["resource_url"], cookies=False, max_redirects=100)
    assert not chain.too_many_redirects
    assert len(chain.hops) - 1 > 20
    assert len(set(chain.urls)) == len(chain.urls)
    assert set(chain.statuses[:-1]) <= set(REDIRECTS)
    assert (chain.last.url, chain.last.status) == (truth["landing_url"], 200)


def test_long_chain_stops_a_20_redirect_client_short_of_the_page(proxy, scenario_truth):
    truth = one(scenario_truth, "long-chain")
    chain = follow(proxy, truth["resource_url"], cookies=False, max_redirects=20)
    assert chain.too_many_redirects
    assert chain.last.status in REDIRECTS


def test_too_large_page_is_over_2_mib(proxy, scenario_truth):
    response = get(proxy, one(scenario_truth, "too-large")["resource_url"])
    assert response.status == 200
    assert len(response.body) > TWO_MIB
    assert int(response.headers["Content-Length"]) == len(response.body)


def test_pdf_is_served_as_application_pdf_starting_with_pdf_magic(proxy, scenario_truth):
    response = get(proxy, one(scenario_truth, "pdf")["resource_url"])
    assert response.status == 200
    assert response.headers["Content-Type"] == "application/pdf"
    assert response.body.startswith(b"%PDF")


def _declared_charsets(response):
    declared = set()
    content_type = response.headers.get("Content-Type", "")
    if "charset=" in content_type:
        declared.add(content_type.split("charset=")[1].strip().lower())
    for meta in reading.document(response.body).xpath("//meta[@charset]"):
        declared.add(meta.get("charset").lower())
    return declared


def test_bad_charset_pages_are_not_valid_utf8(proxy, scenario_truth):
    for truth in scenario_truth["bad-charset"]:
        body = get(proxy, truth["resource_url"]).body
        with pytest.raises(UnicodeDecodeError):
            body.decode("utf-8")


def test_bad_charset_pages_either_claim_utf8_or_declare_no_charset(proxy, scenario_truth):
    declared = [_declared_charsets(get(proxy, t["resource_url"])) for t in scenario_truth["bad-charset"]]
    assert all(d in ({"utf-8"}, set()) for d in declared)
    assert {"utf-8"} in declared and set() in declared  # both habits are represented


def test_challenge_is_403_with_cf_mitigated_header(proxy, scenario_truth):
    truth = one(scenario_truth, "challenge")
    response = get(proxy, truth["resource_url"])
    assert response.status == 403
    assert response.headers["cf-mitigated"] == "challenge"
    assert b"Just a moment" in response.body


def test_challenge_lets_the_clearance_cookie_through_to_the_page(proxy, scenario_truth):
    truth = one(scenario_truth, "challenge")
    response = get(proxy, truth["resource_url"], {"Cookie": scenarios.CLEARANCE_COOKIE})
    assert response.status == 200
    assert b"<article>" in response.body


def _robots(proxy, url):
    parts = urlsplit(url)
    parser = urllib.robotparser.RobotFileParser()
    response = get(proxy, f"{parts.scheme}://{parts.netloc}/robots.txt")
    assert response.status == 200
    parser.parse(response.body.decode().splitlines())
    return parser


def test_robots_disallowed_site_disallows_its_landing_path(proxy, scenario_truth):
    truth = one(scenario_truth, "robots-disallowed")
    assert not _robots(proxy, truth["landing_url"]).can_fetch("*", truth["landing_url"])


def test_ordinary_site_allows_its_landing_path(proxy, scenario_truth):
    truth = one(scenario_truth, "direct")
    assert _robots(proxy, truth["landing_url"]).can_fetch("*", truth["landing_url"])


def test_placeholder_doi_page_meta_shows_the_placeholder_not_its_doi(proxy, scenario_truth):
    truth = one(scenario_truth, "placeholder-doi")
    tags = reading.meta_tags(reading.document(get(proxy, truth["resource_url"]).body))
    stated = {reading.split_value(content)[1] for _, content in tags}
    assert stated == {PLACEHOLDER_DOI}


def test_reference_trap_page_text_extends_its_doi_but_never_states_it_on_a_boundary(proxy, scenario_truth):
    truth = one(scenario_truth, "reference-trap")
    doc = reading.document(get(proxy, truth["resource_url"]).body)
    text = reading.visible_text(doc).lower()
    doi = truth["doi"]
    assert text.count(doi) >= 3  # the references start with the page's DOI ...
    assert reading.doi_in_text_expressions(text, doi) == []  # ... but each goes on past it
    assert doi in [reading.split_value(c)[1] for _, c in reading.meta_tags(doc)]


def test_meta_conflict_page_states_two_different_dois_in_meta(proxy, scenario_truth):
    truth = one(scenario_truth, "meta-conflict")
    tags = reading.meta_tags(reading.document(get(proxy, truth["resource_url"]).body))
    stated = {reading.split_value(content)[1] for _, content in tags}
    assert truth["doi"] in stated
    assert len(stated) == 2


def test_meta_missing_page_has_no_doi_meta_tag(proxy, scenario_truth):
    truth = one(scenario_truth, "meta-missing")
    assert reading.meta_tags(reading.document(get(proxy, truth["resource_url"]).body)) == []


def test_link_only_page_states_its_doi_only_in_a_hyperlink(proxy, scenario_truth):
    truth = one(scenario_truth, "link-only")
    found = reading.analyse(get(proxy, truth["resource_url"]).body, truth["doi"])
    assert (found["meta_tags"], found["doi_in_text"]) == ([], None)
    assert found["doi_in_hyperlinks"] == "https-doi"


def test_text_only_page_states_its_doi_only_in_text(proxy, scenario_truth):
    truth = one(scenario_truth, "text-only")
    found = reading.analyse(get(proxy, truth["resource_url"]).body, truth["doi"])
    assert (found["meta_tags"], found["doi_in_hyperlinks"]) == ([], None)
    assert found["doi_in_text"] == "non-url"


def test_slow_page_arrives_whole_after_its_delay(proxy, scenario_truth):
    truth = one(scenario_truth, "slow")
    started = time.monotonic()
    response = get(proxy, truth["resource_url"])
    assert time.monotonic() - started >= scenarios.SLOW_MS / 1000
    assert response.status == 200
    assert b"</html>" in response.body
