"""landing.core.publishing.current_analysis: the one analysis a DOI counts by."""

from landing.core.publishing.current_analysis import current


def _analysis(doi, driver, day, error=None):
    return {
        "pid/doi": doi,
        "snapshot/driver": driver,
        "snapshot/timestamp": f"2026-11-{day}T00:00:00Z",
        "snapshot/error": error,
    }


def test_current_keeps_one_analysis_per_doi_the_latest_that_reached_a_page():
    stream = [
        _analysis("10.1/a", "browser", 21),
        _analysis("10.1/a", "http", 22, error="js-required"),
        _analysis("10.1/b", "http", 20),
        _analysis("10.1/b", "http", 22),
        _analysis("10.1/c", "http", 20, error="timeout"),
        _analysis("10.1/c", "http", 21, error="dns"),
    ]
    assert [
        (d["pid/doi"], d["snapshot/driver"], d["snapshot/timestamp"][:10], d["snapshot/error"]) for d in current(stream)
    ] == [
        ("10.1/a", "browser", "2026-11-21", None),
        ("10.1/b", "http", "2026-11-22", None),
        ("10.1/c", "http", "2026-11-21", "dns"),
    ]
