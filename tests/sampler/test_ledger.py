"""The run's ledger (landing.sampler.ledger) on a real SQLite store: which sampled DOIs still lack a visit."""

from landing.core.sampling import runs
from landing.sampler.ledger import Ledger
from landing.stores import open_docs


def test_unvisited_lists_each_sampled_doi_without_a_visit_in_plan_order_and_skips_unsampled_owners(tmp_path):
    docs = open_docs(f"sqlite:///{tmp_path / 'landing.db'}")
    ledger = Ledger(docs, "auto", ["crossref"], 2, 3)
    run, _ = ledger.open("2026-11-25T00:00:00Z")
    run = ledger.store_plan(run, [("crossref", "1", 10), ("crossref", "2", 10), ("crossref", "3", 10)], True, "t")
    samples = [s for _, s in sorted((s["sample/order"], s) for s in docs.scan("sample"))]
    first, second, _ = samples  # the third owner is never sampled: it has no DOIs to visit yet
    first = runs.sampled(first, ["10.1/a", "10.1/b", "10.1/c"], "t")
    second = runs.sampled(second, ["10.2/a", "10.2/b"], "t")
    for sample in (first, second):
        ledger.store("sample", runs.sample_id(run["run/id"], sample["sample/order"]), sample)
    for sample, rank in ((first, 1), (second, 0), (second, 1)):
        order, doi = sample["sample/order"], sample["sample/dois"][rank]
        visit = runs.visit_doc(run["run/id"], order, rank, doi, "snapshot")
        ledger.store("visit", runs.visit_id(run["run/id"], order, rank), visit)
    assert [(s["sample/order"], rank, doi) for s, rank, doi in ledger.unvisited(run)] == [
        (first["sample/order"], 0, "10.1/a"),
        (first["sample/order"], 2, "10.1/c"),
    ]
