import pytest

from tests.report.building import published


@pytest.fixture(scope="session")
def artifacts(tmp_path_factory):
    """The artifacts directory of the small named store, published twice (tests/report/building.py)."""
    return published(tmp_path_factory.mktemp("published"))
