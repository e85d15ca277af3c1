"""The settings check names every problem and accepts the project's defaults."""

import dataclasses
import os
import socket

import pytest

from landing import config
from landing import settings as project_settings
from landing.config import SettingsError, choice, number, problems, sources
from landing.setting_checks import TUNING_NAMES
from tests.configuring import settings_under as _settings


def test_the_defaults_have_no_problems(tmp_path):
    assert problems(_settings(tmp_path)) == []


def test_an_empty_source_list_is_a_problem(tmp_path):
    assert problems(_settings(tmp_path, LANDING_SOURCES=" , ")) == [
        "LANDING_SOURCES=' , ': name one or both of crossref,datacite"
    ]


def test_a_sample_minimum_below_one_is_a_problem(tmp_path):
    assert problems(_settings(tmp_path, LANDING_SAMPLE_MIN="0")) == ["LANDING_SAMPLE_MIN=0 must be at least 1"]


def test_a_browser_niceness_above_19_is_a_problem(tmp_path):
    assert problems(_settings(tmp_path, TUNING_BROWSER_NICE="20")) == ["TUNING_BROWSER_NICE=20 must be at most 19"]


def test_continuous_spans_must_be_more_than_zero_and_counts_not_below_their_minimum(tmp_path):
    bad = {
        "LANDING_REFRESH_DAYS": "0",
        "TUNING_PLAN_MINUTES": "-5",
        "LANDING_EXPORT_EVERY": "inf",
        "TUNING_RELIST_HOURS": "daily",
        "LANDING_BUDGET": "-1",
    }
    assert problems(_settings(tmp_path, **bad)) == [
        "LANDING_BUDGET=-1.0 must be at least 0",
        "LANDING_REFRESH_DAYS='0' must be more than 0",
        "TUNING_PLAN_MINUTES='-5' must be more than 0",
        "TUNING_RELIST_HOURS='daily' is not a number",
        "LANDING_EXPORT_EVERY='inf' must be more than 0",
    ]


def test_registry_deltas_are_hourly_by_default_off_at_zero_and_never_a_negative_span(tmp_path):
    assert config.of_settings(_settings(tmp_path)).delta_hours == 1.0
    assert config.of_settings(_settings(tmp_path, LANDING_DELTA_HOURS="0")).delta_hours == 0.0
    bad = {"LANDING_DELTA_HOURS": "-1", "TUNING_DELTA_OVERLAP_MINUTES": "-5", "TUNING_DELTA_MAX_DAYS": "0"}
    assert problems(_settings(tmp_path, **bad)) == [
        "LANDING_DELTA_HOURS=-1.0 must be at least 0",
        "TUNING_DELTA_OVERLAP_MINUTES=-5.0 must be at least 0",
        "TUNING_DELTA_MAX_DAYS='0' must be more than 0",
    ]


def test_continuous_mode_is_off_by_default_and_read_as_a_flag(tmp_path):
    assert config.of_settings(_settings(tmp_path)).continuous is False
    assert config.of_settings(_settings(tmp_path, LANDING_CONTINUOUS="1")).continuous is True


def test_a_clock_speed_of_zero_and_a_since_that_is_no_time_are_problems(tmp_path):
    assert problems(_settings(tmp_path, LANDING_CLOCK_SPEED="0", LANDING_CLOCK_SINCE="soon")) == [
        "LANDING_CLOCK_SPEED='0': use a number more than 0 (1: real time)",
        "LANDING_CLOCK_SINCE='soon': use a Unix time in seconds, such as 1767225600",
    ]


def test_a_clock_that_is_neither_an_instant_nor_a_shift_is_a_problem(tmp_path):
    assert problems(_settings(tmp_path, LANDING_CLOCK="tomorrow")) == [
        "LANDING_CLOCK='tomorrow': use a UTC instant such as 2030-01-01T00:00:00Z (the clock starts there), "
        "or a shift of the wall clock such as +30d, -2h, +90m, +15s"
    ]


def test_an_unknown_resource_url_source_is_a_problem(tmp_path):
    assert problems(_settings(tmp_path, TUNING_RESOURCE_URL_FROM="api")) == [
        "TUNING_RESOURCE_URL_FROM='api': use redirect or handle"
    ]


def test_an_unusable_document_store_is_a_problem(tmp_path):
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{closed.getsockname()[1]}"
    found = problems(_settings(tmp_path, LANDING_DOCS=url))
    assert len(found) == 1
    assert found[0] == f"LANDING_DOCS={url!r}: cannot use Elasticsearch at {url}: Connection refused"


def test_an_unknown_driver_is_a_problem(tmp_path):
    assert problems(_settings(tmp_path, LANDING_DRIVER="sometimes")) == [
        "LANDING_DRIVER='sometimes': use http or browser or auto"
    ]


def test_a_browser_driver_without_chromium_names_the_package_to_install(tmp_path):
    missing = str(tmp_path / "no-chromium")
    assert problems(_settings(tmp_path, LANDING_DRIVER="browser", LANDING_CHROMIUM=missing)) == [
        f"LANDING_CHROMIUM={missing!r} is not an executable: install Debian's chromium-headless-shell package "
        "(apt-get install chromium-headless-shell) or name its path, or use LANDING_DRIVER=auto or http"
    ]


def test_the_auto_driver_without_chromium_is_no_problem(tmp_path):
    # It works as http and warns (tests/sampler/test_doi_sampler_callbacks.py).
    assert problems(_settings(tmp_path, LANDING_DRIVER="auto", LANDING_CHROMIUM=str(tmp_path / "none"))) == []


def test_the_default_driver_is_auto(tmp_path):
    assert _settings(tmp_path).get("LANDING_DRIVER") == "auto"


def test_the_http_driver_does_not_need_chromium(tmp_path):
    assert problems(_settings(tmp_path, LANDING_DRIVER="http", LANDING_CHROMIUM=str(tmp_path / "none"))) == []


def test_a_shared_frontier_url_that_is_not_redis_is_a_problem(tmp_path):
    assert problems(_settings(tmp_path, LANDING_FRONTIER_REDIS="localhost:6379")) == [
        "LANDING_FRONTIER_REDIS='localhost:6379': use a URL like redis://host:6379/0"
    ]


def test_an_unreachable_shared_frontier_is_a_problem(tmp_path):
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        url = f"redis://127.0.0.1:{closed.getsockname()[1]}/0"
    [found] = problems(_settings(tmp_path, LANDING_FRONTIER_REDIS=url))
    assert found.startswith(f"LANDING_FRONTIER_REDIS={url!r}: cannot reach Redis")


def test_a_shared_frontier_with_the_browser_driver_is_a_problem(tmp_path):
    assert problems(
        _settings(
            tmp_path,
            LANDING_FRONTIER_REDIS="redis://127.0.0.1:1/0",
            LANDING_DRIVER="browser",
            LANDING_CHROMIUM="/bin/true",
        )
    ) == ["LANDING_FRONTIER_REDIS works with LANDING_DRIVER=http or auto, not browser"]


def test_a_lease_under_one_second_is_a_problem(tmp_path):
    assert problems(_settings(tmp_path, LANDING_LEASE_SECONDS="0.5")) == [
        "LANDING_LEASE_SECONDS=0.5 must be at least 1"
    ]


def test_a_setting_read_through_its_check_is_refused_in_the_words_problems_uses(tmp_path):
    # What the spider and middlewares read through these, a crawler built without `scrapy crawl` refuses alike.
    settings = _settings(
        tmp_path, LANDING_RESOLVER_ROBOTS="maybe", LANDING_LEASE_SECONDS="0.5", LANDING_SOURCES="crossref,orcid"
    )
    refusals = []
    for check, *names in ((choice, "LANDING_RESOLVER_ROBOTS"), (number, "LANDING_LEASE_SECONDS"), (sources,)):
        with pytest.raises(SettingsError) as refused:
            check(settings, *names)
        refusals.append(str(refused.value))
    assert sorted(refusals) == sorted(problems(settings))


def test_a_good_setting_read_through_its_check_is_its_value(tmp_path):
    settings = _settings(tmp_path, LANDING_SOURCES=" datacite, crossref", LANDING_LEASE_SECONDS="30")
    assert (sources(settings), number(settings, "LANDING_LEASE_SECONDS"), choice(settings, "LANDING_DRIVER")) == (
        ("datacite", "crossref"),
        30.0,
        "auto",
    )


def test_an_exclusion_list_that_cannot_be_read_or_is_not_domains_is_a_problem(tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_text("youtube.com\nhttps://vimeo.com/\n")
    assert problems(_settings(tmp_path, LANDING_EXCLUDED_DOMAINS=str(tmp_path / "missing.txt")))[0].startswith(
        f"LANDING_EXCLUDED_DOMAINS={str(tmp_path / 'missing.txt')!r}: cannot read it"
    )
    assert problems(_settings(tmp_path, LANDING_EXCLUDED_DOMAINS=str(bad))) == [
        f"LANDING_EXCLUDED_DOMAINS={str(bad)!r}: line 2: 'https://vimeo.com/' is not a domain (one host name a line, "
        "such as youtube.com)"
    ]


def test_an_exclusion_list_file_replaces_the_shipped_one(tmp_path):
    from landing.config import exclusions

    mine = tmp_path / "mine.txt"
    mine.write_text("# ours\nvideos.example.org\n")
    assert exclusions(_settings(tmp_path, LANDING_EXCLUDED_DOMAINS=str(mine))) == {"videos.example.org"}
    assert "youtube.com" in exclusions(_settings(tmp_path))


def test_the_matcher_trusts_only_pairs_seen_within_the_days_it_is_told(tmp_path):
    import json
    from datetime import date

    from landing.config import trusted
    from landing.core.matching.decisions import Decisions

    decisions = Decisions.read(
        json.dumps(
            {
                "domains-prefixes": {
                    "old.example": {"10.1": {"domain-recognised": True, "last-seen": "2026-01-01"}},
                    "www.youtube.com": {"10.1": {"domain-recognised": True, "last-seen": "2026-11-20"}},
                    "new.example": {"10.1": {"domain-recognised": True, "last-seen": "2026-11-20"}},
                }
            }
        )
    )
    today = date(2026, 11, 24)
    assert trusted(decisions, _settings(tmp_path), today).recognised == {
        ("old.example", "10.1"),
        ("new.example", "10.1"),
    }
    assert trusted(decisions, _settings(tmp_path, LANDING_MATCH_SEEN_WITHIN=30), today).recognised == {
        ("new.example", "10.1")
    }


def test_the_matcher_counts_its_days_on_the_one_clock(tmp_path):
    import json

    from landing import clock
    from landing.config import trusted
    from landing.core.matching.decisions import Decisions

    pairs = {"seen.example": {"10.1": {"domain-recognised": True, "last-seen": "2030-01-10"}}}
    decisions = Decisions.read(json.dumps({"domains-prefixes": pairs}))
    settings = _settings(tmp_path, LANDING_MATCH_SEEN_WITHIN=30)
    try:
        clock.set_clock("2030-01-20T00:00:00Z")
        within = trusted(decisions, settings).recognised
        clock.set_clock("2030-03-20T00:00:00Z")
        beyond = trusted(decisions, settings).recognised
    finally:
        clock.set_clock(None)
    assert (within, beyond) == ({("seen.example", "10.1")}, set())


@pytest.mark.parametrize("address", ["notanemail", "you@localhost", "you @example.org", "mailto:you@example.org"])
def test_a_mailto_that_is_not_an_email_address_is_a_problem(tmp_path, address):
    assert problems(_settings(tmp_path, LANDING_MAILTO=address)) == [
        f"LANDING_MAILTO={address!r} is not an email address: give one you read, such as you@example.org "
        "(Crossref writes to it when this crawler troubles its API)"
    ]


def test_a_mailto_that_is_an_email_address_is_no_problem_and_is_read_as_given(tmp_path):
    from landing.config import mailto

    settings = _settings(tmp_path, LANDING_MAILTO="ops+landing@lab.example.org")
    assert (problems(settings), mailto(settings)) == ([], "ops+landing@lab.example.org")


def test_a_missing_mailto_is_warned_of_only_when_crossref_is_asked_on_the_real_web(tmp_path):
    from landing.config import mailto_warning

    assert mailto_warning(_settings(tmp_path)) == (
        "LANDING_MAILTO is not set: Crossref answers this crawler from its public pool, at 1 request a second "
        "instead of 3; set -s LANDING_MAILTO=you@example.org"
    )
    assert mailto_warning(_settings(tmp_path, LANDING_MAILTO="you@example.org")) is None
    assert mailto_warning(_settings(tmp_path, LANDING_SANDBOX="http://127.0.0.1:8700")) is None
    assert mailto_warning(_settings(tmp_path, LANDING_SOURCES="datacite")) is None


def test_the_user_agent_names_the_crawler_and_no_address_the_project_does_not_own(tmp_path):
    assert _settings(tmp_path).get("USER_AGENT") == "landing/0.1 (scholarly landing-page sampler)"


def test_config_of_a_crawler_is_checked_once_and_the_same_object_after(tmp_path):
    from tests.crawl.project import crawler

    one, other = crawler(LANDING_DOCS=f"sqlite:///{tmp_path}/x.db"), crawler()
    assert config.of(one) is config.of(one)
    assert config.of(one) is not config.of(other)
    assert (config.of(one).docs, config.of(other).docs) == (f"sqlite:///{tmp_path}/x.db", project_settings.LANDING_DOCS)


def test_a_bad_value_refuses_the_config_in_the_one_line_problems_uses(tmp_path):
    from tests.crawl.project import crawler

    settings = _settings(tmp_path, LANDING_FRONTIER="none")
    with pytest.raises(SettingsError) as refused:
        config.of(crawler(LANDING_FRONTIER="none"))
    assert str(refused.value) == "LANDING_FRONTIER='none' is not a number"
    assert problems(settings) == [str(refused.value)]


def test_two_bad_values_are_refused_together_one_line_each(tmp_path):
    with pytest.raises(SettingsError) as refused:
        config.of_settings(_settings(tmp_path, LANDING_SAMPLE_MIN="0", LANDING_DRIVER="sometimes"))
    assert str(refused.value).splitlines() == [
        "LANDING_DRIVER='sometimes': use http or browser or auto",
        "LANDING_SAMPLE_MIN=0 must be at least 1",
    ]


def test_every_landing_setting_and_tuned_constant_has_one_field_of_its_name():
    names = {name for name in dir(project_settings) if name.startswith("LANDING_")} | set(TUNING_NAMES)
    derived = {"browser_unavailable", "resolver_hosts", "verified_hosts", "health_export_hours"}
    assert {f.name for f in dataclasses.fields(config.Config)} - derived == {config.field_name(n) for n in names}


def test_the_project_defaults_are_read_with_the_types_their_fields_say(tmp_path):
    cfg = config.of_settings(_settings(tmp_path))
    kinds = {int: int, float: float, bool: bool, str: str, "tuple[str, ...]": tuple, "frozenset[str]": frozenset}
    wrong = {}
    for f in dataclasses.fields(cfg):
        kind = kinds.get(f.type, kinds.get(str(f.type)))
        if kind and type(getattr(cfg, f.name)) is not kind:
            wrong[f.name] = getattr(cfg, f.name)
    assert wrong == {}
    assert (cfg.sample_min, cfg.lease_seconds, cfg.export_on_close, cfg.sources) == (
        10,
        120.0,
        True,
        ("crossref", "datacite"),
    )


def test_auto_without_chromium_is_the_http_driver_and_says_the_browser_is_unavailable(tmp_path):
    missing = str(tmp_path / "none")
    auto = config.of_settings(_settings(tmp_path, LANDING_DRIVER="auto", LANDING_CHROMIUM=missing))
    chosen = config.of_settings(_settings(tmp_path, LANDING_DRIVER="http", LANDING_CHROMIUM=missing))
    usable = config.of_settings(_settings(tmp_path, LANDING_DRIVER="auto", LANDING_CHROMIUM="/bin/true"))
    assert [(c.driver, c.browser_unavailable) for c in (auto, chosen, usable)] == [
        ("http", True),
        ("http", False),
        ("auto", False),
    ]


def test_store_secrets_come_from_the_environment_when_unset_and_never_show_in_the_repr(tmp_path, monkeypatch):
    monkeypatch.setenv("LANDING_DOCS_PASSWORD", "from-env")
    cfg = config.of_settings(
        _settings(tmp_path, LANDING_DOCS="http://user:pw@es.example:9200", LANDING_DOCS_API_KEY="key-in-settings")
    )
    assert (cfg.docs_password, cfg.docs_api_key) == ("from-env", "key-in-settings")
    assert [secret for secret in ("from-env", "key-in-settings", "user:pw") if secret in repr(cfg)] == []


def test_a_flag_that_is_neither_true_nor_false_is_a_problem(tmp_path):
    assert problems(_settings(tmp_path, LANDING_EXPORT_REPORT="sometimes")) == [
        "LANDING_EXPORT_REPORT='sometimes': use True or False"
    ]


def test_an_endpoint_that_is_not_an_http_url_is_a_problem(tmp_path):
    assert problems(_settings(tmp_path, LANDING_DOI_RESOLVER="doi.org")) == [
        "LANDING_DOI_RESOLVER='doi.org': use an http:// or https:// URL"
    ]


def test_a_stream_to_consume_needs_the_match_redis_and_an_output_of_its_own(tmp_path):
    assert problems(_settings(tmp_path, LANDING_STREAM_IN="in")) == [
        "LANDING_STREAM_IN='in': set LANDING_MATCH_REDIS to the Redis that holds the stream"
    ]
    shared = {"LANDING_MATCH_REDIS": "redis://127.0.0.1:1/0", "LANDING_STREAM_IN": "x", "LANDING_STREAM_OUT": "x"}
    assert problems(_settings(tmp_path, **shared, TUNING_STREAM_GROUP="")) == [
        "LANDING_STREAM_IN='x' is LANDING_STREAM_OUT too: results need a stream of their own",
        "TUNING_STREAM_GROUP='': give it a name",
    ]


def test_the_stream_consumer_is_named_after_the_host_and_process_unless_set(tmp_path):
    assert config.of_settings(_settings(tmp_path)).stream_consumer == f"{socket.gethostname()}-{os.getpid()}"
    assert config.of_settings(_settings(tmp_path, TUNING_STREAM_CONSUMER="c1")).stream_consumer == "c1"
    assert config.of_settings(_settings(tmp_path)).stream_in is None
