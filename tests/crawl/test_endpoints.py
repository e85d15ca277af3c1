"""Endpoints follow LANDING_SANDBOX: APIs in plain http through a sandbox, the settings' URLs otherwise; a sandbox's
hosts start at no delay."""
from scrapy.settings import Settings

from landing import settings as project_settings
from landing.crawl.endpoints import endpoint, sandbox_pace


def _settings(**overrides):
    settings = Settings()
    settings.setmodule(project_settings)
    settings.setdict(overrides)
    return settings


def test_endpoints_are_https_on_the_real_web():
    assert endpoint(_settings(), "LANDING_CROSSREF_API") == "https://api.crossref.org"


def test_api_endpoints_switch_to_plain_http_with_a_sandbox_and_the_resolver_keeps_https():
    settings = _settings(LANDING_SANDBOX="http://127.0.0.1:8700")
    assert [endpoint(settings, n) for n in ("LANDING_CROSSREF_API", "LANDING_DATACITE_API", "LANDING_DOI_RESOLVER")] \
        == ["http://api.crossref.org", "http://api.datacite.org", "https://doi.org"]


def test_endpoint_drops_a_trailing_slash():
    assert endpoint(_settings(LANDING_DOI_RESOLVER="https://doi.org/"), "LANDING_DOI_RESOLVER") == "https://doi.org"


def _paced(**overrides):
    settings = Settings()
    settings.setmodule(project_settings, priority="project")
    settings.setdict(overrides, priority="cmdline")
    sandbox_pace(settings)
    return settings.getfloat("AUTOTHROTTLE_START_DELAY")


def test_publisher_hosts_start_at_autothrottles_configured_delay_on_the_real_web():
    assert _paced() == project_settings.AUTOTHROTTLE_START_DELAY == 1.0


def test_a_sandboxs_hosts_start_at_no_delay():
    assert _paced(LANDING_SANDBOX="http://127.0.0.1:8700") == 0.0


def test_a_start_delay_set_on_purpose_holds_under_a_sandbox():
    assert _paced(LANDING_SANDBOX="http://127.0.0.1:8700", AUTOTHROTTLE_START_DELAY="1.0") == 1.0
