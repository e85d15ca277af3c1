"""`scrapy match` against a sandbox of the pages it reads, with the artifacts its crawl exported."""

import json
from urllib.parse import quote, urlsplit

import pytest

from landing.core.matching.readings import VERIFICATIONS
from landing.core.pids.doi import find_dois
from landing_dev.sandbox.http import Request
from landing_dev.sandbox.platforms import PLACEHOLDER_DOI
from landing_dev.sandbox.web import State, respond
from landing_dev.sandbox.world import World
from tests.sampler.crawling import at_once, truth_of


def _records(world):
    return {r["doi"].lower(): r for r in map(json.loads, open(world / "dois.jsonl"))}


def _pick(truth, records, scenario="direct", url_has_doi=None, field=None):
    """The first DOI of a scenario (None: any) whose page was reached, optionally with or without its DOI in the URL."""
    for doi, t in truth.items():
        if (scenario and t["scenario"] != scenario) or t["error"] or (field and not records[doi].get(field)):
            continue
        if url_has_doi is not None and (doi in t["final_url"].lower()) != url_has_doi:
            continue
        if url_has_doi is False and "/pii/" in t["final_url"]:
            continue  # a PII in the URL is its own, earlier method
        return doi, t
    pytest.skip(f"no {scenario} DOI with url_has_doi={url_has_doi} field={field}")


def _most_referenced(world, truth, records):
    """The text-only page (no DOI in its URL) that cites the most other works' DOIs."""
    served = World(world)
    best = None
    for doi, t in truth.items():
        if t["scenario"] != "text-only" or t["error"] or doi in t["final_url"].lower() or "/pii/" in t["final_url"]:
            continue
        others = [
            d for d in find_dois(respond(served, Request("GET", t["final_url"]), State()).body.decode()) if d != doi
        ]
        if best is None or len(others) > best[2]:
            best = (doi, t, len(others))
    served.close()
    assert best and best[2] >= 20, best  # a long reference list, or the test proves nothing
    return best[0], best[1]


@pytest.fixture(scope="module")
def cases(match_world):
    """name -> (input, expected DOI or None)."""
    truth, records = truth_of(match_world), _records(match_world)
    in_url, t_url = _pick(truth, records, url_has_doi=True)
    in_meta, t_meta = _pick(truth, records, url_has_doi=False)
    text, t_text = _most_referenced(match_world, truth, records)
    short, _ = (
        _pick(truth, records, None, field="short") if any(r.get("short") for r in records.values()) else (None, None)
    )
    pii, _ = _pick(truth, records, None, field="pii")
    placeholder, t_placeholder = _pick(truth, records, "placeholder-doi", url_has_doi=False)
    base = t_url["final_url"]
    own, t_own = _pick(truth, records, "placeholder-doi", url_has_doi=True)
    other, _ = next((d, t) for d, t in truth.items() if not t["error"] and t["prefix"] != t_url["prefix"])
    encoded = base.replace(in_url, quote(in_url, safe=""))
    found = {
        "bare": (in_meta, in_meta),
        "doi-scheme": (f"doi:{in_meta}", in_meta),
        "https-doi": (f"https://doi.org/{in_meta}", in_meta),
        "dx-encoded": (f"http://dx.doi.org/{quote(in_meta, safe='')}", in_meta),
        "wrapped": (f"<{in_meta.upper()}>.", in_meta),
        "unknown-doi": ("10.99999/no.such.work", None),
        "pii": (f"https://www.example-science.example/science/article/pii/{records[pii]['pii']}", pii),
        "url": (base, in_url),
        "url-abstract": (base + "/abstract", in_url),
        "url-pdf": (base + ".pdf", in_url),
        "url-jsessionid": (base + ";jsessionid=A1B2C3", in_url),
        "url-fragment": (base + "#references", in_url),
        "url-tracking": (base + "?utm_source=twitter&utm_medium=social", in_url),
        "url-encoded": (encoded, in_url),
        "meta": (t_meta["final_url"], in_meta),
        "text-only": (t_text["final_url"], text),
        "placeholder": (t_placeholder["final_url"], placeholder),
        "absent-domain": (f"https://elsewhere.example/doi/{in_url}", None),
        "url-slash": (base + "/", in_url),
        "junk-after": (f"{in_meta}?utm_content=buffer&utm_source=twitter.com", in_meta),
        "sentence": (f"As shown in {in_meta}. More text", in_meta),
        "emoji": (f"{in_meta}\U0001f600", in_meta),
        "resolver-jsessionid": (f"https://doi.org/{in_meta};jsessionid=A1B2C3", in_meta),
        "one-slash": (f"https:/doi.org/{in_meta}", in_meta),
        "schemeless": (base.split("://", 1)[1], in_url),
        "free-text": (f'Two works: <a href="https://doi.org/{in_meta}">one</a>, and {base} (its page).', in_meta),
        "query-parameter": (f"{base.split('/', 3)[0]}//{base.split('/', 3)[2]}/search?doi={in_url}&page=2", in_url),
        # The placeholder site's own prefix reached it, but its meta tags never confirmed it.
        "recognised-prefix": (t_own["final_url"] + "/abstract", own),
        # A known domain, a registered DOI of a prefix never seen there, in a path that is not its page.
        "recognised-domain": (f"{base.split('/article/')[0]}/article/{other}/abstract", other),
    }
    if short:
        found["short"] = (f"https://doi.org/{records[short]['short']}", short)
    return found


ODD = ["http://", "https://[::1", "not a url at all", "ftp://example.org/10.1234/x", "https://exa mple.example/a"]


LABELLED = ["url", "meta", "recognised-domain", "unknown-doi"]  # cases scored by `--evaluate FILE`


@pytest.fixture(scope="module")
def runs(match_crawl, match_sandbox, cases, request, tmp_path_factory):
    """The module's `scrapy match` runs on the match world's crawl, at once (tests.sampler.crawling.at_once)."""
    stores, _ = match_crawl
    labelled = tmp_path_factory.mktemp("labelled") / "labelled.jsonl"
    labelled.write_text("".join(json.dumps({"url": cases[n][0], "doi": cases[n][1]}) + "\n" for n in LABELLED))

    def match(*args):
        return lambda: lambda: stores.scrapy("match", *args, overrides=["-s", f"LANDING_SANDBOX={match_sandbox.proxy}"])

    prepared = {
        "match_run": match(*[case[0] for case in cases.values()], *ODD),
        "unfetched": match("--no-fetch", cases["url"][0], cases["meta"][0]),
        "evaluated": match("--evaluate"),
        "evaluated_file": match("--evaluate", str(labelled)),
    }
    with at_once(request, prepared) as started:
        yield started


@pytest.fixture(scope="module")
def match_run(runs):
    """One `scrapy match` of every case's input, then the ODD ones; (its answer lines, its stderr)."""
    done = runs["match_run"].result()
    assert done.returncode == 0, done.stderr[-3000:]
    return [json.loads(line) for line in done.stdout.splitlines()], done.stderr


@pytest.fixture(scope="module")
def unfetched(runs):
    """`scrapy match --no-fetch` of the cases `url` and `meta`."""
    return runs["unfetched"].result()


@pytest.fixture(scope="module")
def evaluated(runs):
    """`scrapy match --evaluate` on the match world's crawl."""
    return runs["evaluated"].result()


@pytest.fixture(scope="module")
def matched(match_run, cases):
    lines, _ = match_run
    names = list(cases)
    assert [line["input"] for line in lines[: len(names)]] == [cases[n][0] for n in names]  # a line per input, in order
    return dict(zip(names, lines))


@pytest.mark.parametrize("name", ["bare", "doi-scheme", "https-doi", "dx-encoded", "wrapped", "short"])
def test_a_doi_in_any_literal_form_is_matched_literally(matched, cases, name):
    if name not in cases:
        pytest.skip("this world has no shortDOI")
    got = matched[name]
    assert (got["doi"], got["method"], got["verification"]) == (cases[name][1], "doi-literal", "literal")


@pytest.mark.parametrize("name", ["junk-after", "sentence", "emoji", "resolver-jsessionid", "one-slash"])
def test_a_doi_with_junk_around_it_is_cut_free_and_matched_literally(matched, cases, name):
    got = matched[name]
    assert (got["input"], got["doi"], got["method"], got["verification"]) == (*cases[name], "doi-literal", "literal")


def test_a_landing_page_url_written_without_its_scheme_is_read_as_a_url(matched, cases):
    got = matched["schemeless"]
    assert (got["doi"], got["method"]) == (cases["schemeless"][1], "landing-page-url")


def test_free_text_lists_a_match_for_every_url_and_doi_in_it_the_first_leading(matched, cases):
    got = matched["free-text"]
    assert (got["input"], got["doi"]) == cases["free-text"]
    assert [(m["input"], m["doi"], m["method"]) for m in got["matches"]] == [
        (f"https://doi.org/{cases['bare'][1]}", cases["bare"][1], "doi-literal"),
        (cases["url"][0], cases["url"][1], "landing-page-url"),
    ]


def test_a_doi_the_resolver_does_not_know_is_no_match(matched):
    assert (matched["unknown-doi"]["doi"], matched["unknown-doi"]["method"]) == (None, None)


def test_a_pii_in_the_url_is_looked_up(matched, cases):
    got = matched["pii"]
    assert (got["doi"], got["method"], got["verification"]) == (cases["pii"][1], "pii", "lookup")


@pytest.mark.parametrize(
    "name, verification",
    [("url", "checked-url-exact"), ("url-fragment", "checked-url-basic"), ("url-tracking", "checked-url-basic")],
)
def test_a_landing_page_url_holding_its_doi_is_checked_exactly_only_when_it_is_precisely_where_it_resolves(
    matched, cases, name, verification
):
    got = matched[name]
    assert (got["doi"], got["method"], got["verification"]) == (cases[name][1], "landing-page-url", verification)


@pytest.mark.parametrize("name", ["url-abstract", "url-pdf", "url-jsessionid", "url-encoded"])
def test_a_doi_in_a_url_unlike_where_it_resolves_is_found_and_vouched_for_by_the_artifact(matched, cases, name):
    # Junk after the DOI, or %2F for its slash (not the same URL: RFC 3986 6.2.2.2), defeats checked-url.
    got = matched[name]
    assert (got["doi"], got["method"]) == (cases[name][1], "landing-page-url")
    assert got["verification"] == "confirmed-domain-prefix"


def test_a_doi_in_a_query_parameter_is_found_and_vouched_for_by_the_artifact(matched, cases):
    got = matched["query-parameter"]
    assert (got["doi"], got["method"], got["verification"]) == (
        cases["query-parameter"][1],
        "landing-page-url",
        "confirmed-domain-prefix",
    )


def test_a_url_differing_only_by_a_trailing_slash_is_checked_basically(matched, cases):
    got = matched["url-slash"]
    assert (got["doi"], got["method"], got["verification"]) == (
        cases["url-slash"][1],
        "landing-page-url",
        "checked-url-basic",
    )


def test_a_prefix_seen_on_a_domain_but_never_confirmed_there_is_only_recognised(matched, cases):
    got = matched["recognised-prefix"]
    assert (got["doi"], got["method"], got["verification"]) == (
        cases["recognised-prefix"][1],
        "landing-page-url",
        "recognised-domain-prefix",
    )


def test_a_known_domain_alone_vouches_only_for_a_doi_in_its_url_and_says_so(matched, cases):
    got = matched["recognised-domain"]
    assert (got["doi"], got["method"], got["verification"]) == (
        cases["recognised-domain"][1],
        "landing-page-url",
        "recognised-domain",
    )


def test_a_page_without_its_doi_in_the_url_is_matched_by_its_meta_tags(matched, cases):
    got = matched["meta"]
    assert (got["doi"], got["method"], got["verification"]) == (
        cases["meta"][1],
        "landing-page-meta-tag",
        "checked-url-exact",
    )
    assert got["url"] == cases["meta"][0] and got["subj_id"]


def test_a_doi_only_in_the_text_beside_a_reference_list_is_matched_only_by_checking_it(matched, cases):
    got = matched["text-only"]
    assert (got["doi"], got["method"]) == (cases["text-only"][1], "landing-page-page-text")
    assert got["verification"] in ("checked-url-exact", "checked-url-basic")


def test_a_placeholder_doi_on_every_page_of_a_site_is_never_the_match(matched, cases):
    got = matched["placeholder"]
    assert got["doi"] in (None, cases["placeholder"][1])  # its own DOI, found in its text and checked, is right
    assert PLACEHOLDER_DOI.lower() not in json.dumps(
        [a for a in got["evidence"] if "checked-url" in a["outcome"] or "domain" in a["outcome"]]
    )


def test_a_real_doi_on_a_domain_the_artifact_does_not_know_is_no_match(matched):
    assert matched["absent-domain"]["doi"] is None


def test_every_result_records_its_attempts_as_evidence(matched, cases):
    assert set(matched) == set(cases)
    for got in matched.values():
        free_text = {"matches"} if " " in got["input"] else set()  # a sentence, say
        assert (
            set(got) == {"input", "doi", "method", "verification", "checks", "url", "subj_id", "evidence"} | free_text
        )
        assert got["evidence"], got["input"]
        for attempt in got["evidence"]:
            assert set(attempt) == {"step", "candidate", "outcome", "requests"}


def test_without_fetching_a_url_holding_its_doi_is_vouched_for_by_the_artifact(unfetched, cases):
    url, meta = [json.loads(line) for line in unfetched.stdout.splitlines()]
    assert (url["doi"], url["verification"]) == (cases["url"][1], "confirmed-domain-prefix")
    assert meta["doi"] is None


def test_evaluate_matches_no_wrong_doi_at_checked_url(evaluated):
    done = evaluated
    assert done.returncode == 0, done.stderr[-2000:]
    rows = [
        line.split("|") for line in done.stdout.splitlines() if line.startswith("| landing") or line.startswith("| pii")
    ]
    assert rows
    for row in rows:
        verification, wrong = row[2].strip(), int(row[4].strip().replace(",", ""))
        if verification.startswith("checked-url"):
            assert wrong == 0, row


def test_evaluate_file_scores_its_labelled_inputs_per_verification_level(runs):
    done = runs["evaluated_file"].result()
    assert done.returncode == 0, done.stderr[-2000:]
    cells = [[cell.strip() for cell in line.split("|")[1:-1]] for line in done.stdout.splitlines()]
    levels = {row[0]: tuple(row[1:3]) for row in cells if row and row[0] in VERIFICATIONS}
    assert levels == {v: ("0", "0") for v in VERIFICATIONS} | {
        "checked-url-exact": ("2", "0"),
        "recognised-domain": ("1", "0"),
    }
    assert ["no match", "", "", "", "", "1 inputs"] in cells


def test_odd_inputs_each_get_a_null_answer_and_none_is_lost(match_run, cases):
    lines, stderr = match_run
    got = lines[len(cases) :]  # the ODD inputs come after the cases'
    assert [(g["input"], g["doi"]) for g in got] == [(o, None) for o in ODD]
    assert "lost" not in stderr


def test_no_input_reaches_a_cookie_wall_with_another_inputs_cookies(every_crawl, every_sandbox, every_scenario_world):
    stores, _ = every_crawl
    # Cookie-walled pages whose URL holds their DOI: the matcher resolves each DOI and follows it to the page.
    by_site = {}
    for doi, t in sorted(truth_of(every_scenario_world).items()):
        if t["scenario"] == "cookie-wall" and t["cookie_error"] is None and doi in t["cookie_final_url"].lower():
            by_site.setdefault(urlsplit(t["cookie_final_url"]).hostname, []).append(t["cookie_final_url"])
    walled = max(by_site.values(), key=len)[:3]
    assert len(walled) >= 2  # one site: a shared jar would carry the first input's session to the others
    start = len(every_sandbox.seen)
    done = stores.scrapy(
        "match",
        *walled,
        overrides=["-s", f"LANDING_SANDBOX={every_sandbox.proxy}", "-s", "TUNING_MATCH_CONCURRENCY=1"],
    )  # one after another
    assert done.returncode == 0, done.stderr[-2000:]
    first = {}
    for request in every_sandbox.seen[start:]:
        first.setdefault(request.url, request.headers.get("cookie"))
    assert {url: first[url] for url in walled} == {url: None for url in walled}
