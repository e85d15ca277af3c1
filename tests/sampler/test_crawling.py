"""The crawl helpers' export: a SQLite store read again only once it changed."""

from landing.stores import open_docs
from tests.sampler.crawling import Stores


def _put(stores, doi):
    with open_docs(stores.docs) as docs:
        docs.put("pid", doi, {"pid/doi": doi})


def test_an_export_of_an_unchanged_store_runs_no_command_and_one_after_a_write_sees_the_write(tmp_path):
    stores = Stores(tmp_path)
    _put(stores, "10.1/a")
    runs = []
    scrapy = stores.scrapy
    stores.scrapy = lambda *args, **options: runs.append(args) or scrapy(*args, **options)
    first = stores.export("pid")
    assert (stores.export("pid"), len(runs)) == (first, 1)
    _put(stores, "10.1/b")
    assert (sorted(doc["pid/doi"] for doc in stores.export("pid")), len(runs)) == (["10.1/a", "10.1/b"], 2)
