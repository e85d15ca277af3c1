"""The settings check names every problem and accepts the project's defaults."""
from scrapy.settings import Settings

from landing import settings as project_settings
from landing.config import problems


def _settings(tmp_path, **overrides):
    settings = Settings()
    settings.setmodule(project_settings)
    settings.setdict({"LANDING_DOCS": f"sqlite:///{tmp_path}/x.db", "LANDING_BLOBS": f"file://{tmp_path}/b", **overrides})
    return settings


def test_the_defaults_have_no_problems(tmp_path):
    assert problems(_settings(tmp_path)) == []


def test_an_empty_source_list_is_a_problem(tmp_path):
    assert problems(_settings(tmp_path, LANDING_SOURCES=" , ")) == [
        "LANDING_SOURCES=' , ': name one or both of crossref,datacite"]


def test_a_sample_minimum_below_one_is_a_problem(tmp_path):
    assert problems(_settings(tmp_path, LANDING_SAMPLE_MIN="0")) == ["LANDING_SAMPLE_MIN=0 must be at least 1"]


def test_an_unknown_resource_url_source_is_a_problem(tmp_path):
    assert problems(_settings(tmp_path, LANDING_RESOURCE_URL_FROM="api")) == [
        "LANDING_RESOURCE_URL_FROM='api': use redirect or handle"]


def test_an_unusable_document_store_is_a_problem(tmp_path):
    found = problems(_settings(tmp_path, LANDING_DOCS="http://es:9200"))
    assert len(found) == 1 and found[0].startswith("LANDING_DOCS='http://es:9200': Elasticsearch")
