"""landing.core.pages.documents: pid, snapshot and analysis documents, their derived ids, and redirect chains."""

from landing.core.pages.documents import (
    ANALYSIS_KEYS,
    PID_KEYS,
    SNAPSHOT_KEYS,
    analysis,
    analysis_id,
    hops,
    only,
    pid,
    pid_id,
    resource_url,
    snapshot,
    snapshot_id,
    upgraded,
)
from landing.core.pids.doi import RESOLVER_HOSTS as RESOLVERS
from landing.core.registries.names import KEYS, UNKNOWN, Names
from landing.core.registries.names import read as names_in

TS = "2024-05-06T10:00:00Z"


def a_pid(**changes):
    return {**pid("10.1234/abc", "crossref", "98", TS), **changes}


def a_snapshot(timestamp="2024-05-06T10:00:00Z", driver="http"):
    return snapshot(a_pid(), timestamp=timestamp, driver=driver, final_url="https://pub.example/a")


# pid


def test_pid_normalises_a_doi_url_to_the_bare_lower_case_doi():
    assert pid("https://doi.org/10.1234/ABC", "crossref", "98", TS)["pid/doi"] == "10.1234/abc"


def test_pid_has_the_prefix_of_the_normalised_doi():
    assert pid("https://doi.org/10.1234/ABC", "crossref", "98", TS)["pid/doi-prefix"] == "10.1234"


def test_pid_global_member_id_joins_ra_and_member_id():
    assert pid("10.1234/abc", "datacite", "cern.zenodo", TS)["pid/global-member-id"] == "datacite/cern.zenodo"


def test_pid_member_id_is_a_string_even_when_given_a_number():
    doc = pid("10.1234/abc", "crossref", 98, TS)
    assert (doc["pid/member-id"], doc["pid/global-member-id"]) == ("98", "crossref/98")


def test_pid_has_exactly_the_pid_keys():
    assert list(pid("10.1234/abc", "crossref", "98", TS)) == list(PID_KEYS)


def test_pid_id_is_the_normalised_doi():
    assert pid_id(pid("DOI:10.1234/ABC", "crossref", "98", TS)) == "10.1234/abc"


# hops


def test_hops_pairs_each_redirect_url_with_its_status_then_the_last_url():
    chain = hops(["http://doi.org/10.1/x", "https://doi.org/10.1/x"], [301, 302], "https://pub.example/a", 200)
    assert chain == [
        {"url": "http://doi.org/10.1/x", "status": 301},
        {"url": "https://doi.org/10.1/x", "status": 302},
        {"url": "https://pub.example/a", "status": 200},
    ]


def test_hops_marks_a_meta_refresh_as_a_200_of_kind_meta_refresh():
    chain = hops(
        ["https://doi.org/10.1/x", "https://pub.example/wait"], [302, "meta refresh"], "https://pub.example/a", 200
    )
    assert chain[1] == {"url": "https://pub.example/wait", "status": 200, "kind": "meta-refresh"}


def test_hops_without_a_last_url_ends_on_the_last_redirect():
    assert hops(["https://doi.org/10.1/x"], [302], None, None) == [{"url": "https://doi.org/10.1/x", "status": 302}]


def test_hops_of_a_request_that_was_not_redirected_is_the_one_url():
    assert hops([], [], "https://pub.example/a", 404) == [{"url": "https://pub.example/a", "status": 404}]


# resource_url


def test_resource_url_is_the_first_hop_off_the_resolver():
    chain = [
        {"url": "http://doi.org/10.1/x", "status": 301},
        {"url": "https://dx.doi.org/10.1/x", "status": 302},
        {"url": "http://pub.example/a", "status": 301},
        {"url": "https://pub.example/a", "status": 200},
    ]
    assert resource_url(chain, RESOLVERS) == "http://pub.example/a"


def test_resource_url_of_a_chain_that_never_left_the_resolver_is_none():
    assert resource_url([{"url": "https://doi.org/10.1/x", "status": 404}], RESOLVERS) is None


def test_resource_url_compares_hosts_case_insensitively():
    chain = [{"url": "https://DOI.ORG/10.1/x", "status": 302}, {"url": "https://pub.example/a", "status": 200}]
    assert resource_url(chain, RESOLVERS) == "https://pub.example/a"


# snapshot and its id


def test_snapshot_keeps_the_pid_and_has_every_snapshot_key():
    doc = a_snapshot()
    assert list(doc) == list(PID_KEYS) + list(SNAPSHOT_KEYS)


def test_snapshot_fills_missing_fields_with_none():
    doc = a_snapshot()
    assert (doc["snapshot/error"], doc["snapshot/content-hash"], doc["snapshot/status"]) == (None, None, None)


def test_snapshot_maps_dashed_keys_from_underscored_fields():
    doc = snapshot(a_pid(), content_type="text/html", error_detail="boom", resource_url="https://pub.example/r")
    assert (doc["snapshot/content-type"], doc["snapshot/error-detail"], doc["snapshot/resource-url"]) == (
        "text/html",
        "boom",
        "https://pub.example/r",
    )


def test_snapshot_final_url_domain_is_the_lower_case_host_without_port():
    doc = snapshot(a_pid(), final_url="https://WWW.Pub.Example:8443/a?b=1")
    assert doc["snapshot/final-url-domain"] == "www.pub.example"


def test_snapshot_final_url_domain_is_none_without_final_url():
    assert snapshot(a_pid())["snapshot/final-url-domain"] is None


def test_snapshot_final_url_domain_is_none_when_the_host_is_no_hostname():
    for url in ("https://a\x1bcred.evil.example/p", "https://a\u202eb.evil.example/p", "https://=1+2.evil.example/"):
        assert snapshot(a_pid(), final_url=url)["snapshot/final-url-domain"] is None, url


CHAIN = [
    {"url": "https://doi.org/10.1234/abc", "status": 302},
    {"url": "https://pub.example/r", "status": 200, "kind": "meta-refresh"},
    {"url": "https://pub.example/a", "status": 200},
]


def test_snapshot_urls_are_the_chain_s_urls_as_strings_and_its_hops_keep_status_and_kind():
    doc = snapshot(a_pid(), hops=CHAIN, final_url="https://pub.example/a")
    assert (doc["snapshot/urls"], doc["snapshot/hops"]) == (
        ["https://doi.org/10.1234/abc", "https://pub.example/r", "https://pub.example/a"],
        CHAIN,
    )


def test_snapshot_without_a_chain_has_no_urls_and_no_hops():
    doc = a_snapshot()
    assert (doc["snapshot/urls"], doc["snapshot/hops"]) == (None, None)


def test_upgraded_reads_a_snapshot_stored_with_hop_objects_in_urls_as_urls_and_hops():
    stored = {**a_snapshot(), "snapshot/urls": CHAIN}
    del stored["snapshot/hops"]  # stores written before snapshot/hops existed
    doc = upgraded(stored)
    assert (doc["snapshot/urls"], doc["snapshot/hops"]) == ([hop["url"] for hop in CHAIN], CHAIN)


def test_upgraded_leaves_a_current_snapshot_and_other_documents_as_they_are():
    current = snapshot(a_pid(), hops=CHAIN, final_url="https://pub.example/a")
    run = {"run/id": "r", "run/state": "visiting"}
    assert (upgraded(current), upgraded(run), upgraded(a_snapshot())) == (current, run, a_snapshot())


def test_a_pid_of_a_named_owner_keeps_its_names_through_its_snapshot_and_analysis():
    named = pid("10.5281/zenodo.1", "datacite", "cern.zenodo", TS, Names("Zenodo", "cern", "CERN"))
    done = analysis(snapshot(named, timestamp=TS, driver="http"), None, TS)
    assert (done["pid/member-name"], done["pid/provider-id"], done["pid/provider-name"]) == ("Zenodo", "cern", "CERN")


def test_a_pid_without_names_has_them_null():
    assert (a_pid()["pid/member-name"], a_pid()["pid/provider-id"], a_pid()["pid/provider-name"]) == (None,) * 3


def test_upgraded_gives_a_pid_snapshot_or_analysis_stored_before_names_null_names_and_keeps_the_rest():
    stored = {k: v for k, v in analysis(a_snapshot(), None, TS).items() if k not in KEYS["pid"]}
    assert upgraded(stored) == {**stored, "pid/member-name": None, "pid/provider-id": None, "pid/provider-name": None}


def test_upgraded_gives_a_sample_or_prefix_stored_before_names_null_names():
    sample = {"sample/run": "r", "sample/order": 0, "sample/ra": "crossref", "sample/owner": "98"}
    prefix = {"prefix/ra": "crossref", "prefix/owner": "98", "prefix/prefix": "10.1234"}
    assert (names_in("sample", upgraded(sample)), names_in("prefix", upgraded(prefix))) == (UNKNOWN, UNKNOWN)
    assert set(upgraded(sample)) == set(sample) | set(KEYS["sample"])


def test_upgraded_leaves_names_a_document_has_as_they_are():
    named = pid("10.1234/abc", "crossref", "98", TS, Names("Harbour Lane Press"))
    assert upgraded(named) is named


def test_snapshot_id_is_the_same_for_two_times_on_one_utc_day():
    assert snapshot_id(a_snapshot("2024-05-06T00:00:01Z")) == snapshot_id(a_snapshot("2024-05-06T23:59:59Z"))


def test_snapshot_id_differs_across_days():
    assert snapshot_id(a_snapshot("2024-05-06T23:59:59Z")) != snapshot_id(a_snapshot("2024-05-07T00:00:00Z"))


def test_snapshot_id_differs_across_drivers():
    assert snapshot_id(a_snapshot(driver="http")) != snapshot_id(a_snapshot(driver="browser"))


def test_snapshot_id_names_doi_driver_and_day():
    assert snapshot_id(a_snapshot("2024-05-06T10:00:00Z", "browser")) == "10.1234/abc browser 2024-05-06"


def test_analysis_id_is_its_snapshot_id():
    doc = analysis(a_snapshot(), None, TS)
    assert analysis_id(doc) == snapshot_id(a_snapshot())


# analysis and only


def test_analysis_without_findings_has_every_analysis_field_none_but_its_timestamp():
    doc = analysis(a_snapshot(), None, "2024-05-06T11:00:00Z")
    assert {k: doc[k] for k in ANALYSIS_KEYS} == {
        **dict.fromkeys(ANALYSIS_KEYS[:-1]),
        "analysis/timestamp": "2024-05-06T11:00:00Z",
    }


def test_analysis_copies_the_findings():
    found = {
        "analysis/meta-tags": [["citation_doi", "10.1234/abc"]],
        "analysis/meta-tag-correctness": "ok",
        "analysis/doi-in-text": None,
        "analysis/doi-in-hyperlinks": "https-doi",
        "analysis/doi-in-meta-tags": "non-url",
    }
    doc = analysis(a_snapshot(), found, TS)
    assert {k: doc[k] for k in ANALYSIS_KEYS[:-1]} == found


def test_analysis_is_a_superset_of_its_snapshot():
    snap = a_snapshot()
    doc = analysis(snap, None, TS)
    assert {k: doc[k] for k in snap} == snap


def test_analysis_leaves_its_snapshot_unchanged():
    snap = a_snapshot()
    before = dict(snap)
    analysis(snap, None, TS)
    assert snap == before


def test_only_keeps_the_keys_of_the_stages_asked_for():
    doc = analysis(a_snapshot(), None, TS)
    assert list(only(doc, PID_KEYS, SNAPSHOT_KEYS)) == list(PID_KEYS) + list(SNAPSHOT_KEYS)


def test_only_gives_none_for_keys_the_document_lacks():
    assert only(a_pid(), ANALYSIS_KEYS) == dict.fromkeys(ANALYSIS_KEYS)
