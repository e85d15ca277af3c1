"""Endpoints follow LANDING_SANDBOX: APIs in plain http through a sandbox, the settings' URLs otherwise; a sandbox's
hosts start at no delay, and DOIs at no rate."""

import pytest
from scrapy.settings import Settings

from landing import settings as project_settings
from landing.config import SettingsError, of_settings
from landing.crawl.endpoints import sandbox_pace


def _settings(**overrides):
    settings = Settings()
    settings.setmodule(project_settings)
    settings.setdict(overrides)
    return settings


def test_endpoints_are_https_on_the_real_web():
    assert of_settings(_settings()).crossref_api == "https://api.crossref.org"


def test_api_endpoints_switch_to_plain_http_with_a_sandbox_and_the_resolver_keeps_https():
    cfg = of_settings(_settings(LANDING_SANDBOX="http://127.0.0.1:8700"))
    assert [cfg.crossref_api, cfg.datacite_api, cfg.doi_resolver] == [
        "http://api.crossref.org",
        "http://api.datacite.org",
        "https://doi.org",
    ]


def test_endpoint_drops_a_trailing_slash():
    assert of_settings(_settings(LANDING_DOI_RESOLVER="https://doi.org/")).doi_resolver == "https://doi.org"


def _chosen(**overrides):
    settings = Settings()
    settings.setmodule(project_settings, priority="project")
    settings.setdict(overrides, priority="cmdline")
    return settings


def _paced(**overrides):
    settings = _chosen(**overrides)
    sandbox_pace(settings, of_settings(settings))
    return settings.getfloat("AUTOTHROTTLE_START_DELAY")


def test_publisher_hosts_start_at_autothrottles_configured_delay_on_the_real_web():
    assert _paced() == project_settings.AUTOTHROTTLE_START_DELAY == 1.0


def test_a_sandboxs_hosts_start_at_no_delay():
    assert _paced(LANDING_SANDBOX="http://127.0.0.1:8700") == 0.0


def test_a_start_delay_set_on_purpose_holds_under_a_sandbox():
    assert _paced(LANDING_SANDBOX="http://127.0.0.1:8700", AUTOTHROTTLE_START_DELAY="1.0") == 1.0


def test_dois_start_at_the_resolver_rate_on_the_real_web():
    assert of_settings(_chosen()).resolver_rate == project_settings.LANDING_RESOLVER_RATE == 100


def test_a_sandbox_paces_no_doi_unless_the_rate_is_set_on_purpose():
    assert of_settings(_chosen(LANDING_SANDBOX="http://127.0.0.1:8700")).resolver_rate == 0.0
    assert (
        of_settings(_chosen(LANDING_SANDBOX="http://127.0.0.1:8700", LANDING_RESOLVER_RATE="20")).resolver_rate == 20.0
    )


def test_a_negative_resolver_rate_is_refused_in_words():
    with pytest.raises(SettingsError, match="LANDING_RESOLVER_RATE=-1.0 must be at least 0"):
        of_settings(_chosen(LANDING_RESOLVER_RATE="-1"))
