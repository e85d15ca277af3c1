from landing.core.publishing.report_figures import TOP, WORST, figures, run_details, trend_point
from landing.core.publishing.report_rows import counted


def _report(kind, key, dois, ok=0, missing=0, errors=None, good=None):
    doc = {
        "report/kind": kind,
        "report/key": key,
        "report/dois": dois,
        "report/correctness": {"ok": ok, "incorrect": 0, "conflict": 0, "missing": missing},
        "report/errors": errors or {},
    }
    if kind == "prefix":
        doc["report/good-domains"], doc["report/bad-domains"] = good or [], ["x.example"]
    return doc


def test_totals_count_dois_once_by_prefix_and_each_kind_of_key():
    found = figures(
        [
            _report("prefix", "10.1", 3, ok=2, errors={"dns": 1}, good=["a.example"]),
            _report("prefix", "10.2", 2, missing=1, errors={"dns": 1}),
            _report("domain", "a.example", 3, ok=2),
            _report("member", "crossref/1", 5, ok=2),
        ]
    )
    assert found["totals"] == {
        "dois": 5,
        "read": 3,
        "failed": 2,
        "prefixes": 2,
        "domains": 1,
        "members": 1,
        "correctness": {"ok": 2, "incorrect": 0, "conflict": 0, "missing": 1},
        "errors": {"dns": 2},
        "prefixes-without-good-domain": 1,
    }
    assert [row["key"] for row in found["prefixes-without-good-domain"]] == ["10.2"]


def test_each_ranking_keeps_only_the_top_rows_largest_first():
    found = figures(_report("prefix", f"10.{n}", n) for n in range(100))
    assert [row["dois"] for row in found["prefixes"]] == list(range(99, 99 - TOP, -1))


def test_the_worst_domains_have_the_lowest_share_of_ok_among_all_their_dois_and_enough_dois():
    found = figures(
        [
            _report("domain", "good.example", 10, ok=10),
            _report("domain", "bad.example", 10, missing=10),
            _report("domain", "tiny.example", 1, missing=1),
            _report("domain", "half.example", 8, ok=4, missing=4),
            _report("domain", "half-failed.example", 8, ok=4, errors={"dns": 4}),
        ]
    )
    assert [(row["key"], row["ok-of-dois"], row["ok-share"]) for row in found["worst-domains"]] == [
        ("bad.example", 0.0, 0.0),
        ("half.example", 0.5, 0.5),
        ("half-failed.example", 0.5, 1.0),
        ("good.example", 1.0, 1.0),
    ]


def test_the_failing_domains_rank_by_failed_visits():
    found = figures(
        [
            _report("domain", "a.example", 5, errors={"challenge": 1}),
            _report("domain", "b.example", 5, errors={"http-4xx": 3}),
            _report("domain", "c.example", 5),
        ]
    )
    assert [row["key"] for row in found["failing-domains"]] == ["b.example", "a.example"]


def test_a_trend_point_is_a_versions_dois_correctness_and_failed_visits():
    found = figures([_report("prefix", "10.1", 4, ok=2, errors={"robots": 1, "dns": 1})])
    assert trend_point("v1", found) == {
        "version": "v1",
        "dois": 4,
        "correctness": {"ok": 2, "incorrect": 0, "conflict": 0, "missing": 0},
        "failed": 2,
    }


def test_a_trend_row_counts_the_failed_visits_of_its_version():
    found = figures([_report("prefix", "10.1", 22, ok=0, errors={"http-4xx": 22})])
    assert counted(trend_point("v1", found))["failed"] == 22


def test_a_domain_where_nothing_could_be_read_is_the_worst_with_its_failures():
    found = figures(
        [
            _report("domain", "blocked.example", 10, errors={"robots": 10}),
            _report("domain", "read.example", 6, ok=3, missing=3),
        ]
    )
    assert [(row["key"], row["read"], row["ok-share"], row["errors"]) for row in found["worst-domains"]] == [
        ("blocked.example", 0, None, {"robots": 10}),
        ("read.example", 6, 0.5, {}),
    ]


def test_the_worst_members_and_prefixes_are_bounded_and_carry_their_names():
    docs = [{**_report("member", f"crossref/{n}", 5 + n, ok=n), "report/name": f"Press {n}"} for n in range(80)]
    docs.append({**_report("prefix", "10.9", 5), "report/member": "crossref/9", "report/member-name": "Press 9"})
    found = figures(docs)
    assert len(found["worst-members"]) == WORST
    assert [(r["key"], r["name"]) for r in found["worst-members"][:2]] == [
        ("crossref/0", "Press 0"),
        ("crossref/1", "Press 1"),
    ]
    assert [(r["key"], r["member"], r["name"]) for r in found["worst-prefixes"]] == [("10.9", "crossref/9", "Press 9")]


def test_the_run_details_are_the_latest_runs():
    runs = [
        {"run/id": "a", "run/started": "2026-11-01T00:00:00Z", "run/sources": ["crossref"], "run/owners": 3},
        {
            "run/id": "b",
            "run/started": "2026-11-02T00:00:00Z",
            "run/state": "finished",
            "run/dois-planned": 40,
            "run/sources": ["crossref", "datacite"],
            "run/owners": 6,
        },
    ]
    assert run_details(runs) == {
        "id": "b",
        "started": "2026-11-02T00:00:00Z",
        "updated": None,
        "state": "finished",
        "mode": "full",
        "sources": ["crossref", "datacite"],
        "owners": 6,
        "dois-planned": 40,
    }
    assert run_details([]) is None
