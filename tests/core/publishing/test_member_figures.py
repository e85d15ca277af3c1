"""landing.core.publishing.member_figures: members.jsonl.gz's and domains.jsonl.gz's objects, read from the aggregate that makes
the report documents, so counted as they count them."""

from landing.core.publishing import member_figures
from landing.core.publishing.aggregation import EXAMPLES, Aggregate
from landing.core.publishing.member_figures import MEMBER_DOMAINS
from landing.core.web.failures import CLASSES
from tests.core.publishing.aggregating import doc


def _named(d: dict, name: str | None, when: str = "2030-01-01T00:00:00Z", **more) -> dict:
    return {**d, "pid/member-name": name, "pid/timestamp": when, **more}


MIXED = [
    _named(doc("10.1/a", "a.example", correctness="ok", meta="https-doi"), "Press"),
    _named(doc("10.1/b", "a.example", correctness="missing"), "Press"),
    _named(doc("10.1/c", "b.example", correctness="incorrect", meta="non-url"), "Press"),
    _named(doc("10.2/d", "b.example", error="robots"), "Press"),
    _named(doc("10.2/e", None, error="timeout"), "Press"),
    _named(doc("10.3/f", "a.example", correctness="ok", meta="https-doi", member="9"), None),
    _named(doc("10.3/g", "c.example", error="refused-address", member="9"), None),
]


class _Figures:
    """The member figures of one aggregate, read as often as a test asks."""

    def __init__(self, aggregate: Aggregate):
        self.aggregate = aggregate

    def members(self):
        return member_figures.members(self.aggregate)

    def domains(self):
        return member_figures.domains(self.aggregate)


def _both(docs):
    """The report documents by key and the member figures of one aggregation of `docs`."""
    aggregate = Aggregate()
    for d in docs:
        aggregate.add(d)
    return {r["report/key"]: r for r in aggregate.reports()}, _Figures(aggregate)


def test_a_members_dois_correctness_errors_and_name_are_its_member_reports():
    reports, figures = _both(MIXED)
    members = {m["member"]: m for m in figures.members()}
    assert {k: (m["dois"], m["correctness"], m["errors"], m["name"]) for k, m in members.items()} == {
        k: (
            reports[k]["report/dois"],
            reports[k]["report/correctness"],
            reports[k]["report/errors"],
            reports[k]["report/name"],
        )
        for k in ("crossref/340", "crossref/9")
    }


def test_a_domains_dois_correctness_and_errors_are_its_domain_reports_refused_visits_included():
    reports, figures = _both(MIXED)
    assert {d["domain"]: (d["dois"], d["correctness"], d["errors"]) for d in figures.domains()} == {
        k: (reports[k]["report/dois"], reports[k]["report/correctness"], reports[k]["report/errors"])
        for k in ("a.example", "b.example", "c.example")
    }


def test_a_members_prefixes_carry_their_good_and_bad_domains_as_the_prefix_reports_do():
    reports, figures = _both(MIXED)
    press = next(figures.members())
    assert [(p["prefix"], p["good-domains"], p["bad-domains"]) for p in press["prefixes"]] == [
        (k, reports[k]["report/good-domains"], reports[k]["report/bad-domains"]) for k in ("10.1", "10.2")
    ]


def test_a_member_object_has_contract_2s_keys_in_order_with_shares_of_pages_read():
    press = next(_both(MIXED)[1].members())
    assert list(press) == [
        "member", "ra", "id", "name", "provider", "dois", "read", "correctness", "errors", "failed", "ok-share",
        "prefixes", "domains", "domains-total", "examples",
    ]  # fmt: skip
    assert (press["read"], press["failed"], press["ok-share"], press["provider"]) == (3, 2, 0.3333, None)


def test_a_members_domains_are_ranked_by_dois_and_name_a_wrong_doi_to_show():
    press = next(_both(MIXED)[1].members())
    assert [(d["domain"], d["dois"], d["ok-share"], d["wrong-example"]) for d in press["domains"]] == [
        ("a.example", 2, 0.5, None),
        ("b.example", 2, 0.0, "10.1/c"),
    ]


def test_a_members_domains_name_a_doi_whose_page_lacks_the_tag_and_one_whose_visit_failed_with_its_class():
    press = next(_both(MIXED)[1].members())
    assert [(d["domain"], d["missing-example"], d["failed-example"]) for d in press["domains"]] == [
        ("a.example", {"doi": "10.1/b", "url": "https://a.example/x"}, None),
        ("b.example", None, {"doi": "10.2/d", "url": "https://b.example/x", "error": "robots"}),
    ]


def test_a_members_domains_listed_stop_at_the_most_while_the_total_counts_them_all():
    docs = [doc(f"10.1/{n}", f"d{n:03}.example", correctness="ok") for n in range(MEMBER_DOMAINS + 5)]
    docs += [doc("10.1/x", "d054.example", correctness="ok")]  # two DOIs: ranked first
    press = next(_both(docs)[1].members())
    assert (len(press["domains"]), press["domains-total"], press["domains"][0]["domain"]) == (
        MEMBER_DOMAINS,
        MEMBER_DOMAINS + 5,
        "d054.example",
    )


def test_examples_show_each_failure_class_and_wrong_correctness_first_then_ok_pages():
    press = next(_both(MIXED)[1].members())
    assert [(e["doi"], e["error"], e["correctness"]) for e in press["examples"]] == [
        ("10.2/e", "timeout", None),
        ("10.2/d", "robots", None),
        ("10.1/c", None, "incorrect"),
        ("10.1/b", None, "missing"),
        ("10.1/a", None, "ok"),
    ]


def test_an_example_keeps_the_landing_url_and_at_most_five_meta_tags():
    tags = [["citation_doi", f"10.1/{n}"] for n in range(8)]
    found = next(
        _both([{**doc("10.1/a", "a.example", correctness="conflict"), "analysis/meta-tags": tags}])[1].members()
    )
    assert found["examples"][0] | {"visited": None} == {
        "doi": "10.1/a",
        "url": "https://a.example/x",
        "domain": "a.example",
        "error": None,
        "correctness": "conflict",
        "meta-tags": tags[:5],
        "doi-in-meta-tags": None,
        "visited": None,
    }


def test_a_member_keeps_at_most_ten_examples_however_many_dois_it_has():
    docs = [doc(f"10.1/{n}", "a.example", correctness="ok") for n in range(50)]
    assert len(next(_both(docs)[1].members())["examples"]) == EXAMPLES


def test_a_domain_lists_its_members_with_most_dois_there_and_the_prefixes_that_led_there():
    figures = _both(MIXED)[1]
    a = next(d for d in figures.domains() if d["domain"] == "a.example")
    assert (a["members"], a["members-total"]) == (
        [
            {"member": "crossref/340", "name": "Press", "dois": 2, "prefixes": ["10.1"]},
            {"member": "crossref/9", "name": None, "dois": 1, "prefixes": ["10.3"]},
        ],
        2,
    )


def test_a_members_name_is_its_latest_sampled_pids():
    docs = [
        _named(doc("10.1/a"), "New Name", when="2030-02-01T00:00:00Z"),
        _named(doc("10.1/b"), "Old Name", when="2030-01-01T00:00:00Z"),
    ]
    assert next(_both(docs)[1].members())["name"] == "New Name"


def test_members_and_domains_come_sorted_by_key():
    figures = _both(MIXED)[1]
    assert ([m["member"] for m in figures.members()], [d["domain"] for d in figures.domains()]) == (
        ["crossref/340", "crossref/9"],
        ["a.example", "b.example", "c.example"],
    )


def test_with_more_kinds_of_trouble_than_examples_the_first_classes_are_shown_and_ok_pages_give_way():
    docs = [doc("10.1/ok1", "a.example", correctness="ok"), doc("10.1/ok2", "a.example", correctness="ok")]
    docs += [doc(f"10.1/{c}", "a.example", error=c) for c in reversed(CLASSES[:12])]
    shown = next(_both(docs)[1].members())["examples"]
    assert [e["error"] for e in shown] == list(CLASSES[:EXAMPLES])
