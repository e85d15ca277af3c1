"""The project's settings with every store and output under one test's tmp_path, for tests of landing.config."""

from scrapy.settings import Settings

from landing import settings as project_settings


def settings_under(tmp_path, **overrides) -> Settings:
    """The project's settings, its stores and outputs under tmp_path, with `overrides` set."""
    settings = Settings()
    settings.setmodule(project_settings)
    settings.setdict(
        {
            "LANDING_DOCS": f"sqlite:///{tmp_path}/x.db",
            "LANDING_BLOBS": f"file://{tmp_path}/b",
            "LANDING_ARTIFACTS_DIR": str(tmp_path / "a"),
            "LANDING_UNWRITTEN_DIR": str(tmp_path / "u"),
            **overrides,
        }
    )
    return settings
