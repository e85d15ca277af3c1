"""Bad API answers (issue 16): an answer that is not the JSON the API documents (HTML with a 200, wrong types, a
cursor the API repeats) is an API failure with its URL, counted, and the crawl ends with a non-zero status: it
never hangs waiting for a listing that cannot finish, and never silently drops a source."""

import json
import re
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest

from tests.local_http import serving
from tests.sampler.crawling import Stores

JSON = {"Content-Type": "application/json"}
CLIENTS = {"data": [{"id": "good.client", "type": "clients"}, {"id": "bad.client", "type": "clients"}], "links": {}}


ASKED: dict = {}
COUNTING = threading.Lock()  # the crawls run at once, each answered on threads of its own


def _dois(*dois):
    return json.dumps({"data": [{"id": doi, "attributes": {"doi": doi}} for doi in dois]}).encode()


def prefixes(rest, times):
    """A client listing two prefixes whose own sample has only the first's DOIs; the second's sample fails once."""
    if rest.startswith("datacite/clients"):
        listed = [{"id": p, "type": "prefixes"} for p in ("10.1234", "10.5678")]
        return (
            200,
            JSON,
            json.dumps(
                {"data": [{"id": "many.client", "type": "clients", "relationships": {"prefixes": {"data": listed}}}]}
            ).encode(),
        )
    if "prefix=10.5678" in rest and "client-id=many.client" in rest and "random=true" in rest:
        if times == 1:
            return 503, {"Content-Type": "text/html"}, b"<html>Busy</html>"
        return 200, JSON, _dois("10.5678/x1", "10.5678/x2")
    if rest.startswith("datacite/dois") and "random" in rest:
        return 200, JSON, _dois(*(f"10.1234/m{n}" for n in range(5)))
    if rest.startswith("datacite/dois"):
        return 200, JSON, json.dumps({"data": [], "meta": {"total": 40}}).encode()
    return 404, {"Content-Type": "text/html"}, b"<html>DOI not found</html>"


def answer(asked):
    scenario, _, rest = asked.lstrip("/").partition("/")
    with COUNTING:
        ASKED[asked] = times = ASKED.get(asked, 0) + 1
    if scenario == "prefixes":
        return prefixes(rest, times)
    if scenario == "flaky" and rest.startswith("datacite/dois") and "random" not in rest and times == 1:
        return 200, {"Content-Type": "text/html"}, b"<html>Try again later</html>"  # only the first time
    if (
        scenario == "partial"
        and rest.startswith("datacite/dois")
        and "client-id=bad.client" in rest
        and "random" not in rest
        and times == 1
    ):
        return 503, {"Content-Type": "text/html"}, b"<html>Busy</html>"  # the first crawl's count only
    if scenario == "partial" and rest.startswith("datacite/dois") and "random" not in rest:
        return 200, JSON, json.dumps({"data": [], "meta": {"total": 3}}).encode()
    if scenario == "partial" and rest.startswith("datacite/dois") and "random" in rest:
        client = re.search(r"client-id=([\w.]+)", rest).group(1)
        doi = f"10.1234/{client}"
        return 200, JSON, json.dumps({"data": [{"id": doi, "attributes": {"doi": doi}}]}).encode()
    if rest.startswith("datacite/clients"):
        clients = CLIENTS if scenario in ("count", "partial") else {**CLIENTS, "data": CLIENTS["data"][:1]}
        return 200, JSON, json.dumps(clients).encode()
    if rest.startswith("datacite/dois") and "client-id=bad.client" in rest and "random" not in rest:
        return 200, {"Content-Type": "text/html"}, b"<html>Service unavailable</html>"  # a portal's page
    if rest.startswith("datacite/dois") and "random" not in rest:
        return 200, JSON, json.dumps({"data": [], "meta": {"total": 3}}).encode()
    if rest.startswith("datacite/dois") and scenario == "flaky":
        return 200, JSON, json.dumps({"data": [{"id": "10.1234/ok", "attributes": {"doi": "10.1234/ok"}}]}).encode()
    if rest.startswith("datacite/dois") and scenario == "dois":  # "DOIs" no registry should answer
        ids = ["10.1234/ok", "10.1234/a\u0000b", "not a doi", " 10.1234/Spaced ", "10.1234/line\nbreak", ""]
        return 200, JSON, json.dumps({"data": [{"id": i or "x", "attributes": {"doi": i}} for i in ids]}).encode()
    if rest.startswith("datacite/dois"):  # a sample whose items are not objects
        return 200, JSON, json.dumps({"data": "not a list of DOIs"}).encode()
    if rest.startswith("resolver/"):
        return 404, {"Content-Type": "text/html"}, b"<html>DOI not found</html>"
    if rest.startswith("crossref/members") and scenario == "offset":
        # No cursor (offset paging), and every page the same member: paging that never ends.
        page = {"items": [{"id": 7, "primary-name": "P", "counts": {"total-dois": 5}}], "total-results": 1000}
        return 200, JSON, json.dumps({"status": "ok", "message": page}).encode()
    if rest.startswith("crossref/members"):
        # Every page names the same next cursor: paging that never ends.
        page = {
            "items": [{"id": 7, "primary-name": "P", "counts": {"total-dois": 5}}],
            "next-cursor": "again",
            "total-results": 1000,
        }
        return 200, JSON, json.dumps({"status": "ok", "message": page}).encode()
    return 404, JSON, b"{}"


# scenario: (its API, how many times the same command runs on its stores)
SCENARIOS = {
    "count": ("datacite", 1),
    "cursor": ("crossref", 1),
    "sample": ("datacite", 1),
    "dois": ("datacite", 1),
    "flaky": ("datacite", 1),
    "offset": ("crossref", 1),
    "partial": ("datacite", 2),
    "prefixes": ("datacite", 2),
}


@pytest.fixture(scope="module")
def crawls(tmp_path_factory):
    """{scenario: (each crawl's CompletedProcess, in order, then the stores)}. The scenarios' crawls run at once:
    each spends most of its seconds waiting out the pace the crawl keeps with the API hosts, whichever they are."""
    stores = {scenario: Stores(tmp_path_factory.mktemp(scenario)) for scenario in SCENARIOS}
    with serving(answer) as (port, _), ThreadPoolExecutor(len(SCENARIOS)) as pool:

        def run(scenario):
            sources, times = SCENARIOS[scenario]
            retries = 1 if scenario == "flaky" else 0
            base = f"http://127.0.0.1:{port}/{scenario}"
            return tuple(_crawl(stores[scenario], base, sources, retries) for _ in range(times))

        running = {scenario: pool.submit(run, scenario) for scenario in SCENARIOS}
        return {scenario: (*done.result(), stores[scenario]) for scenario, done in running.items()}


def _crawl(stores, base, sources, retries):
    return stores.try_crawl(
        overrides=[
            "-s",
            f"LANDING_CROSSREF_API={base}/crossref",
            "-s",
            f"LANDING_DATACITE_API={base}/datacite",
            "-s",
            f"LANDING_SOURCES={sources}",
            "-s",
            "LANDING_ADDRESS_GUARD=False",
            "-s",
            f"LANDING_DOI_RESOLVER={base}/resolver",
            "-s",
            "LANDING_RESOLVER_RATE=0",
            "-s",
            "AUTOTHROTTLE_ENABLED=False",
            "-s",
            f"RETRY_TIMES={retries}",
            "-s",
            "CLOSESPIDER_TIMEOUT=30",
            "-s",
            "TELNETCONSOLE_ENABLED=False",
            "-s",
            "LANDING_PROGRESS_INTERVAL=0",
            # These crawls never reach a page, so the driver does not matter: http spares each the browser's handler.
            "-s",
            "LANDING_DRIVER=http",
        ],
        timeout=120,
    )


def _finish_reason(done) -> str:
    return re.findall(r"'finish_reason': '(\w+)'", done.stderr)[-1]


@pytest.mark.parametrize("scenario", ["count", "cursor", "sample", "offset"])
def test_a_bad_answer_ends_the_crawl_at_once_with_a_non_zero_status(crawls, scenario):
    done, _ = crawls[scenario]
    assert (_finish_reason(done), done.returncode, "Traceback" in done.stderr) == ("finished", 1, False)


def test_a_count_that_is_not_json_is_an_api_failure_naming_its_url(crawls):
    assert re.search(r"ERROR: .*client-id=bad\.client.*not the JSON", crawls["count"][0].stderr)
    assert "'landing/run/listing_failed': 1" in crawls["count"][0].stderr


def test_a_cursor_the_api_repeats_is_an_api_failure_not_endless_paging(crawls):
    assert re.search(r"ERROR: .*repeated its cursor 'again'", crawls["cursor"][0].stderr)


def test_a_sample_whose_items_are_not_objects_leaves_its_owner_for_the_next_run(crawls):
    stderr = crawls["sample"][0].stderr
    assert re.search(r"ERROR: Sample request failed, owner datacite/good\.client .*not the JSON", stderr)
    assert "1 owners could not be sampled, so the run stays open" in stderr


def test_sampled_dois_that_are_not_dois_are_counted_and_never_visited(crawls):
    done, stores = crawls["dois"]
    pids = sorted(doc["pid/doi"] for doc in stores.export("pid"))
    assert (done.returncode, pids, "'landing/run/bad_dois': 4" in done.stderr) == (
        0,
        ["10.1234/ok", "10.1234/spaced"],
        True,
    )
    assert "4 of the 6 DOIs sampled for datacite/good.client are not DOIs" in done.stderr


def test_an_answer_that_is_not_json_once_is_asked_again_and_the_run_goes_on(crawls):
    done, stores = crawls["flaky"]
    assert (done.returncode, [doc["pid/doi"] for doc in stores.export("pid")]) == (0, ["10.1234/ok"])
    assert re.search(r"WARNING: Asking again \(1 of 1\): .*client-id=good\.client", done.stderr)


def test_a_members_page_the_api_answers_again_is_an_api_failure_not_a_thousand_duplicates(crawls):
    done, _ = crawls["offset"]
    assert re.search(r"ERROR: .*offset=1.*the API repeated members '7'", done.stderr)
    assert "'landing/run/listing_failed': 1" in done.stderr


def test_a_listing_that_failed_part_way_samples_what_was_listed_and_the_same_command_samples_the_rest(crawls):
    first, second, stores = crawls["partial"]
    assert first.returncode == 1
    assert "the 1 listed are planned, and the same command lists again and samples those missing" in first.stderr
    assert "1 listing requests failed, so only the owners listed were planned and the run stays open" in first.stderr
    assert second.returncode == 0 and "Run " in second.stderr and "finished" in second.stderr
    samples = sorted((s["sample/order"], s["sample/owner"]) for s in stores.export("sample"))
    assert samples == [(0, "good.client"), (1, "bad.client")]  # the plan extended, the first owner kept
    assert sorted(doc["pid/doi"] for doc in stores.export("pid")) == ["10.1234/bad.client", "10.1234/good.client"]
    assert [run["run/state"] for run in stores.export("run")] == ["finished"]
    sampled = [n for asked, n in ASKED.items() if asked.startswith("/partial/") and "random" in asked]
    assert sampled == [1, 1]  # each owner sampled once, across both crawls


def test_a_prefix_the_sample_missed_is_sampled_on_its_own_and_its_failure_leaves_the_owner_for_the_next_crawl(crawls):
    first, second, stores = crawls["prefixes"]
    assert first.returncode == 1
    assert re.search(
        r"ERROR: Sample request failed, owner datacite/many\.client .*prefix=10\.5678.*HTTP 503", first.stderr
    )
    assert second.returncode == 0 and "'landing/run/prefix_samples': 1" in second.stderr
    assert sorted(doc["pid/doi"] for doc in stores.export("pid")) == [
        "10.1234/m0",
        "10.1234/m1",
        "10.1234/m2",
        "10.1234/m3",
        "10.1234/m4",
        "10.5678/x1",
        "10.5678/x2",
    ]
    [sample] = stores.export("sample")
    assert (sample["sample/size"], sample["sample/per-prefix"], len(sample["sample/dois"])) == (40, 3, 7)
