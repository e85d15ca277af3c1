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


def _visit(day, domain, error=None):
    url = f"https://{domain}/a" if domain else None
    return {
        **_analysis("10.1/a", "http", day, error),
        "snapshot/resource-url": url,
        "snapshot/final-url-domain": domain,
    }


def test_a_later_failure_on_another_domain_counts_over_the_page_reached_before():
    stream = [_visit(20, "old.example"), _visit(22, "new.example", error="robots")]
    assert [(d["snapshot/final-url-domain"], d["snapshot/error"]) for d in current(stream)] == [
        ("new.example", "robots")
    ]


def test_a_later_failure_on_the_same_domain_leaves_the_page_reached_counting():
    stream = [_visit(20, "old.example"), _visit(22, "old.example", error="timeout")]
    assert [(d["snapshot/final-url-domain"], d["snapshot/error"]) for d in current(stream)] == [("old.example", None)]


def test_a_later_failure_that_never_left_the_resolver_leaves_the_page_reached_counting():
    stream = [_visit(20, "old.example"), _visit(22, None, error="http-4xx")]
    assert [(d["snapshot/final-url-domain"], d["snapshot/error"]) for d in current(stream)] == [("old.example", None)]


def test_a_page_reached_after_a_failure_elsewhere_counts():
    stream = [_visit(20, "new.example", error="timeout"), _visit(22, "old.example")]
    assert [(d["snapshot/final-url-domain"], d["snapshot/error"]) for d in current(stream)] == [("old.example", None)]
