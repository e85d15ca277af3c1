"""docs/matching.md "Verification": each row of the table, with a real-looking example, answered from a table."""

import json

from landing.core.matching.decisions import Decisions
from landing.core.matching.questions import Exists, Fetch, Pii, Resolve, Titles
from tests.core.matching.cascading import TITLE, found, matched, page, resolves

NATURE = "https://www.nature.com/articles/nature12373"
NATURE_DOI = "10.1038/nature12373"
PMC = "https://www.ncbi.nlm.nih.gov/pmc/articles/PMC4852986/"
PMC_DOI = "10.1007/s10461-013-0685-8"
SPRINGER = f"https://link.springer.com/article/{PMC_DOI}"


def artifact(*cells: tuple[str, str, str]) -> Decisions:
    """An artifact's decisions of (domain, prefix, "confirmed" | "recognised") cells."""
    table = {}
    for domain, prefix, flag in cells:
        table.setdefault(domain, {})[prefix] = {"domain-recognised": True, "domain-confirmed": flag == "confirmed"}
    return Decisions.read(json.dumps({"domains-prefixes": table}))


NATURE_ARTIFACT = artifact(("www.nature.com", "10.1038", "confirmed"))


def on_nature(url: str, resolved: str = NATURE) -> dict:
    """The answers for a Nature article page at url whose meta tag states its DOI, which resolves to `resolved`."""
    return {
        Fetch(url): page(url, meta_doi=NATURE_DOI),
        Exists(NATURE_DOI): (True, 1),
        Resolve(NATURE_DOI): resolves(resolved),
    }


def verified(result) -> tuple:
    return (*found(result), result["checks"])


def test_literal_the_input_is_a_doi_the_handle_api_knows():
    result, _ = matched(
        "https://doi.org/10.1371/journal.pone.0160617", {Exists("10.1371/journal.pone.0160617"): (True, 1)}
    )
    assert verified(result) == ("10.1371/journal.pone.0160617", "doi-literal", "literal", [])


def test_lookup_the_pii_in_the_url_is_crossrefs_record_of_one_doi():
    url = "https://www.sciencedirect.com/science/article/pii/S0169534701023801"
    answers = {Pii(("S0169534701023801", "S0169-5347(01)02380-1")): (["10.1016/s0169-5347(01)02380-1"], 1)}
    result, _ = matched(url, answers, decisions=artifact(("www.sciencedirect.com", "10.1016", "confirmed")))
    assert verified(result) == ("10.1016/s0169-5347(01)02380-1", "pii", "lookup", [])


def test_checked_url_exact_the_doi_resolves_to_precisely_the_input():
    result, _ = matched(NATURE, on_nature(NATURE), decisions=NATURE_ARTIFACT)
    assert verified(result) == (NATURE_DOI, "landing-page-meta-tag", "checked-url-exact", [])


def test_checked_url_exact_for_a_doi_in_the_url_that_resolves_to_precisely_it():
    url, doi = (
        "https://journals.plos.org/plosone/article?id=10.1371/journal.pone.0160617",
        "10.1371/journal.pone.0160617",
    )
    answers = {Exists(doi): (True, 1), Resolve(doi): resolves(url)}
    result, _ = matched(url, answers, decisions=artifact(("journals.plos.org", "10.1371", "confirmed")))
    assert verified(result) == (doi, "landing-page-url", "checked-url-exact", [])


def test_checked_url_basic_a_tracking_parameter_is_not_precisely_the_same_url():
    url = NATURE + "?utm_source=twitter&utm_medium=social"
    result, _ = matched(url, on_nature(url), decisions=NATURE_ARTIFACT)
    assert verified(result) == (NATURE_DOI, "landing-page-meta-tag", "checked-url-basic", [])


def test_checked_url_basic_another_protocol():
    url = NATURE.replace("https:", "http:")
    result, _ = matched(url, on_nature(url), decisions=NATURE_ARTIFACT)
    assert verified(result) == (NATURE_DOI, "landing-page-meta-tag", "checked-url-basic", [])


def test_checked_url_basic_another_letter_case():
    url = NATURE.replace("nature12373", "NATURE12373")
    result, _ = matched(url, on_nature(url), decisions=NATURE_ARTIFACT)
    assert verified(result) == (NATURE_DOI, "landing-page-meta-tag", "checked-url-basic", [])


def test_checked_url_basic_the_doi_resolves_to_the_page_the_input_redirected_to():
    old, new, doi = (
        "http://jnci.oxfordjournals.org/content/108/6/djw160.full",
        "https://academic.oup.com/jnci/article/108/6/djw160/2412450",
        "10.1093/jnci/djw160",
    )
    answers = {
        Fetch(old): page(old, meta_doi=doi, final=new),
        Exists(doi): (True, 1),
        Resolve(doi): resolves(new),
    }
    decisions = artifact(
        ("jnci.oxfordjournals.org", "10.1093", "confirmed"), ("academic.oup.com", "10.1093", "confirmed")
    )
    result, _ = matched(old, answers, decisions=decisions)
    assert verified(result) == (doi, "landing-page-meta-tag", "checked-url-basic", ["resolves-to-final-url"])


def test_checked_url_basic_the_doi_resolves_to_the_pages_canonical_link():
    url, canonical, doi = (
        "https://elifesciences.org/articles/44753/figures",
        "https://elifesciences.org/articles/44753",
        "10.7554/elife.44753",
    )
    fetched, requests = page(url, meta_doi=doi)
    fetched.body = fetched.body.replace(b"</head>", f'<link rel="canonical" href="{canonical}"></head>'.encode())
    answers = {Fetch(url): (fetched, requests), Exists(doi): (True, 1), Resolve(doi): resolves(canonical)}
    result, _ = matched(url, answers, decisions=artifact(("elifesciences.org", "10.7554", "confirmed")))
    assert verified(result) == (doi, "landing-page-meta-tag", "checked-url-basic", ["resolves-to-canonical-url"])


def test_confirmed_domain_prefix_a_meta_tag_on_a_domain_confirmed_for_the_prefix():
    url, doi = (
        "http://www.circumpolarhealthjournal.net/index.php/ijch/article/view/18594/html",
        "10.3402/ijch.v71i0.18594",
    )
    answers = {
        Fetch(url): page(url, meta_doi=doi),
        Exists(doi): (True, 1),
        Resolve(doi): resolves(f"https://www.tandfonline.com/doi/full/{doi}"),
    }
    result, _ = matched(url, answers, decisions=artifact(("www.circumpolarhealthjournal.net", "10.3402", "confirmed")))
    assert verified(result) == (doi, "landing-page-meta-tag", "confirmed-domain-prefix", [])


def on_pmc(prefix: str, registered=None) -> dict:
    """PubMed Central's copy stating PMC_DOI in its meta tag, which resolves to Springer's page; the artifact lists
    www.ncbi.nlm.nih.gov as recognised for `prefix`; `registered`: the DOI's registered titles (None: no record)."""
    answers = {
        Fetch(PMC): page(PMC, meta_doi=PMC_DOI),
        Exists(PMC_DOI): (True, 1),
        Resolve(PMC_DOI): resolves(SPRINGER),
        Titles(PMC_DOI): (registered, 1),
    }
    result, _ = matched(PMC, answers, decisions=artifact(("www.ncbi.nlm.nih.gov", prefix, "recognised")))
    return result


def test_recognised_domain_prefix_a_meta_tag_on_a_domain_recognised_for_the_prefix():
    assert verified(on_pmc("10.1007")) == (PMC_DOI, "landing-page-meta-tag", "recognised-domain-prefix", [])


def test_recognised_domain_a_meta_tag_on_a_domain_the_artifact_lists_for_other_prefixes_only():
    assert verified(on_pmc("10.1093")) == (PMC_DOI, "landing-page-meta-tag", "recognised-domain", [])


def test_registered_title_is_a_check_beside_the_domains_level():
    assert verified(on_pmc("10.1007", ([TITLE], []))) == (
        PMC_DOI,
        "landing-page-meta-tag",
        "recognised-domain-prefix",
        ["registered-title"],
    )
