"""landing.match.lookups: the matcher's network questions, asked through a real Scrapy engine, cached per crawl."""

import json
import os
import sys
import uuid
from urllib.parse import parse_qs, urlsplit

import pytest
import redis

import landing.settings
from landing.core.matching.questions import Alias, Exists, Fetch, Pii, Resolve, Titles
from landing.match.lookups import Lookups, NotHeld
from tests import forked
from tests.local_http import serving
from tests.match.lookups_probe import CRAWL, ROOT, answer, closed_port

RETRY_TIMES = landing.settings.RETRY_TIMES


@pytest.fixture(scope="module")
def space():
    """The namespace of this module's answers on the session's redis-server."""
    return f"test-lookups:{uuid.uuid4().hex}"


@pytest.fixture(scope="module")
def crawl(redis_server, space):
    """{scenario: its answers, "stats": the crawl's landing/ stats}, and the paths the server was asked, in order."""
    with serving(answer) as (port, hits):
        arguments = [f"http://127.0.0.1:{port}", f"http://127.0.0.1:{closed_port()}", redis_server, space]
        arguments.append(f"redis://127.0.0.1:{closed_port()}/0")
        done = forked.run([sys.executable, "-c", CRAWL, *arguments], ROOT, os.environ, 120)
        asked = list(hits)
    assert done.returncode == 0, done.stderr[-3000:]
    outcomes = {}
    for line in done.stdout.splitlines():
        outcomes.update(json.loads(line))
    return outcomes, asked


def asked_by(crawl, scenario):
    """The paths the server was asked by one scenario, in order."""
    return [path for path in crawl[1] if path.startswith(f"/{scenario}/")]


# exists / handle: the Handle API


def test_a_registered_doi_exists_at_the_cost_of_one_request(crawl):
    assert crawl[0]["exists"][0] == [True, 1]


def test_a_doi_asked_again_in_another_case_is_answered_from_the_cache_at_no_cost(crawl):
    assert crawl[0]["exists"][1] == [True, 0]


def test_a_doi_asked_twice_is_asked_of_the_handle_api_once_as_first_written(crawl):
    assert asked_by(crawl, "exists") == ["/exists/api/handles/10.1234/Exists"]


def test_an_unregistered_doi_does_not_exist(crawl):
    assert crawl[0]["missing"] == [False, 1]


def test_concurrent_askers_of_one_doi_share_one_request(crawl):
    assert (crawl[0]["together"], asked_by(crawl, "together")) == (
        [[True, 1], [True, 0], [True, 0]],
        ["/together/api/handles/10.1234/exists"],
    )


# alias: shortDOIs


def test_a_short_doi_stands_for_the_normalised_doi_of_its_alias(crawl):
    assert crawl[0]["alias"][0] == ["10.1234/aliased", 1]


def test_an_unregistered_short_doi_stands_for_nothing(crawl):
    assert crawl[0]["alias"][1] == [None, 1]


# pii: Crossref's alternative-id


def test_a_pii_finds_the_sorted_normalised_dois_of_its_first_form_crossref_knows(crawl):
    assert crawl[0]["pii"][0] == [["10.1016/a", "10.1016/b"], 2]


def test_a_pii_stops_at_its_first_form_that_finds_dois(crawl):
    assert [parse_qs(urlsplit(path).query)["filter"] for path in asked_by(crawl, "pii")] == [
        ["alternative-id:S0000000000000001"],
        ["alternative-id:S0000000000000002"],
    ]


def test_a_pii_asked_again_is_answered_from_the_cache_at_no_cost(crawl):
    assert crawl[0]["pii"][1] == [["10.1016/a", "10.1016/b"], 0]


def test_a_pii_crossref_does_not_know_finds_nothing(crawl):
    assert crawl[0]["unknown_pii"] == [[], 1]


def test_a_pii_query_names_the_mailto_when_one_is_given(crawl):
    assert asked_by(crawl, "mailto") == [
        "/mailto/api/works?filter=alternative-id:S0000000000000002&select=DOI&rows=5&mailto=me%40example.org"
    ]


# resolve and fetch: chains followed with Scrapy's middlewares


def test_resolving_a_doi_follows_its_redirects_to_the_landing_page(crawl):
    first, requests = crawl[0]["resolve"][0]
    assert ({k: first[k] for k in ("final_url", "status", "hops", "error")}, requests) == (
        {
            "final_url": first["url"].replace("/10.1234/moved", "/landing/moved"),
            "status": 200,
            "hops": 2,
            "error": None,
        },
        2,
    )


def test_a_resolution_keeps_where_it_led_but_never_the_pages_body(crawl):
    assert [answer[0]["body"] for answer in crawl[0]["resolve"]] == [None, None]


def test_a_doi_resolved_again_is_answered_from_the_cache_at_no_cost(crawl):
    (first, _), (again, requests) = crawl[0]["resolve"]
    assert (again, requests, asked_by(crawl, "resolve")) == (
        first,
        0,
        ["/resolve/10.1234/moved", "/resolve/landing/moved"],
    )


def test_a_fetch_is_never_cached(crawl):
    first, again = crawl[0]["fetch"]
    assert (first == again, first["body"], asked_by(crawl, "fetch")) == (
        True,
        "<html><title>landing</title></html>",
        ["/fetch/landing/a", "/fetch/landing/a"],
    )


def test_every_fetchs_cookie_jar_is_dropped_when_it_ends(crawl):
    assert crawl[0]["stats"]["landing/cookie_jars_left"] == 0


# failures


def test_a_handle_api_error_after_scrapys_retries_is_a_failed_lookup_not_an_unregistered_doi(crawl):
    assert crawl[0]["failing"][0] == "failed"


def test_a_failed_lookup_is_not_cached_so_the_next_asker_asks_again(crawl):
    assert (crawl[0]["failing"][1], asked_by(crawl, "failing")) == (
        "failed",
        ["/failing/api/handles/10.1234/exists"] * (2 * (1 + RETRY_TIMES)),
    )


def test_an_answer_that_is_not_json_is_a_failed_lookup(crawl):
    assert crawl[0]["garbled"] == ["failed", "failed"]


def test_a_page_robots_txt_disallows_is_a_robots_failure_never_requested(crawl):
    page = crawl[0]["robots"]
    assert (page["error"], page["final_url"], page["hops"], asked_by(crawl, "robots")) == ("robots", None, 0, [])


def test_an_unreachable_handle_api_is_a_failed_lookup(crawl):
    assert crawl[0]["closed"][0] == "failed"


def test_an_unreachable_page_is_a_connection_failure(crawl):
    page = crawl[0]["closed"][1]
    assert (page["error"], page["status"], page["body"]) == ("connection", None, None)


# titles: Crossref's record, else DataCite's


def test_a_crossref_doi_has_its_titles_and_original_titles_and_subtitles_in_one_request(crawl):
    assert crawl[0]["titles"][0] == [[["Main title", "Titre original"], ["A subtitle"]], 1]


def test_a_datacite_doi_is_asked_of_datacite_after_crossref_answers_404_its_subtitles_apart(crawl):
    assert crawl[0]["titles"][1] == [[["A dataset"], ["its subtitle"]], 2]


def test_a_doi_neither_registry_knows_has_no_registered_title(crawl):
    assert crawl[0]["titles"][2] == [None, 2]


def test_titles_asked_again_are_answered_from_the_cache_at_no_cost(crawl):
    assert (crawl[0]["titles"][3], len(asked_by(crawl, "titles"))) == (
        [[["Main title", "Titre original"], ["A subtitle"]], 0],
        5,
    )


def test_a_crossref_error_is_a_failed_title_lookup_not_a_missing_title(crawl):
    assert crawl[0]["failing_titles"] == "failed"


# bounded and shared caches


def test_the_cache_of_answers_never_holds_more_than_its_bound_the_least_recently_used_asked_again(crawl):
    assert crawl[0]["bounded"] == {"answers": [[False, 1], [False, 1], [False, 1], [False, 1], [False, 0]], "held": 2}
    assert asked_by(crawl, "bounded") == [f"/bounded/api/handles/10.1234/n{n}" for n in (1, 2, 3, 1)]


def test_an_answer_one_lookups_asked_is_read_from_redis_by_another_at_no_cost(crawl):
    first, again = crawl[0]["shared"]
    assert [answer for answer, _ in again] == [answer for answer, _ in first]
    assert ([requests for _, requests in first], [requests for _, requests in again]) == ([1, 1, 1, 1], [0, 0, 0, 0])


def test_a_question_answered_through_redis_is_asked_of_the_network_once_for_both(crawl):
    assert asked_by(crawl, "shared") == [
        "/shared/api/handles/10.1234/exists",
        "/shared/10.1234/moved",
        "/shared/api/works/10.1234/Crossref",
        "/shared/api/works?filter=alternative-id:S0000000000000002&select=DOI&rows=5",
    ]


def test_answers_in_redis_are_written_with_the_ttl(crawl, redis_server, space):
    with redis.Redis.from_url(redis_server) as client:
        ttls = [client.pttl(key) for key in client.scan_iter(f"{space}:q:*")]
    assert len(ttls) == 4 and all(0 < ttl <= 3600 * 1000 for ttl in ttls)


def test_a_failed_lookup_is_cached_neither_in_the_process_nor_in_redis(crawl, redis_server, space):
    with redis.Redis.from_url(redis_server) as client:
        kept = list(client.scan_iter(f"{space}:failing:*"))
    assert (crawl[0]["failing_shared"], len(asked_by(crawl, "failing_shared")), kept) == (
        ["failed", "failed"],
        2 * (1 + RETRY_TIMES),
        [],
    )


def test_a_redis_that_is_down_makes_questions_misses_answered_by_the_network_and_counted(crawl):
    assert crawl[0]["redis_down"] == {
        "answers": [[True, 1], [True, 0]],
        "stats": {"hits": 0, "misses": 1, "errors": 1},
    }


# held: the questions answered at once from the answers this process holds, as `answer` answers them from there
def held_lookups(answers: dict):
    """Lookups whose process holds `answers` (their keys without the scope), asking nothing: no engine."""
    lookups = Lookups(None, "https://doi.example", "https://crossref.example", "https://datacite.example")
    for key, value in answers.items():
        lookups.answers.questions.layers[0].values[(lookups.scope, *key)] = value
    return lookups


ALIAS = {"values": [{"type": "HS_ALIAS", "data": {"format": "string", "value": "10.1234/ABC"}}]}


def test_a_doi_whose_handle_record_is_held_exists_at_once_at_no_cost():
    lookups = held_lookups({("handle", "10.1234/abc"): {"values": []}, ("handle", "10.1234/gone"): None})
    assert (lookups.held(Exists("10.1234/ABC")), lookups.held(Exists("10.1234/gone"))) == ((True, 0), (False, 0))


def test_a_short_doi_whose_record_is_held_stands_at_once_for_its_normalised_alias():
    assert held_lookups({("handle", "10/abcd"): ALIAS}).held(Alias("10/ABCD")) == ("10.1234/abc", 0)


def test_a_pii_is_held_when_its_forms_up_to_the_first_that_finds_dois_are():
    lookups = held_lookups({("pii", "S1"): [], ("pii", "S2"): ["10.1016/a"]})
    assert lookups.held(Pii(("S1", "S2", "S3"))) == (["10.1016/a"], 0)
    with pytest.raises(NotHeld):
        lookups.held(Pii(("S1", "S3", "S2")))  # S3 is asked before S2: it is not held


def test_a_resolution_and_titles_held_are_read_back_as_answer_reads_them():
    where = {"url": "https://doi.example/10.1234/abc", "final_url": "https://journal.example/a", "status": 200}
    where |= {"headers": None, "body": None, "hops": 2, "error": None}
    lookups = held_lookups({("resolve", "10.1234/abc"): where, ("titles", "10.1234/abc"): [["A title"], []]})
    resolved, _ = lookups.held(Resolve("10.1234/ABC"))
    assert (resolved.final_url, resolved.hops) == ("https://journal.example/a", 2)
    assert lookups.held(Titles("10.1234/abc")) == ((["A title"], []), 0)


def test_a_question_not_held_a_page_or_one_being_asked_is_not_answered_at_once():
    lookups = held_lookups({("handle", "10.1234/abc"): {"values": []}})
    lookups.inflight[(lookups.scope, "handle", "10.1234/abc")] = None  # being asked: `answer` waits for it
    for question in (Exists("10.1234/def"), Fetch("https://journal.example/a"), Exists("10.1234/abc")):
        with pytest.raises(NotHeld):
            lookups.held(question)
