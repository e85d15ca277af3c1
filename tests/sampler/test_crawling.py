"""The crawl helpers' export: the store read in the test's own process, as it stands at each read."""

from landing.stores import open_docs
from tests.sampler.crawling import Stores


def _put(stores, doi):
    with open_docs(stores.docs) as docs:
        docs.put("pid", doi, {"pid/doi": doi})


def test_an_export_runs_no_command_and_each_one_sees_the_store_as_it_stands(tmp_path):
    stores = Stores(tmp_path)
    _put(stores, "10.1/a")
    runs = []
    scrapy = stores.scrapy
    stores.scrapy = lambda *args, **options: runs.append(args) or scrapy(*args, **options)
    first = stores.export("pid")
    _put(stores, "10.1/b")
    second = stores.export("pid")
    assert (first, sorted(doc["pid/doi"] for doc in second), runs) == (
        [{"pid/doi": "10.1/a"}],
        ["10.1/a", "10.1/b"],
        [],
    )
