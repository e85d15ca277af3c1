"""A page's stated title against a DOI's registered one (landing.core.pages.titles)."""

import pytest

from landing.core.pages.analysis import read_page
from landing.core.pages.titles import same_work, stated, words
from landing_dev.sandbox.corpus import FOLDER

PAGES = FOLDER / "landing-pages" / "pages"


def test_words_drop_markup_entities_accents_case_and_punctuation():
    assert words("Quantisierung als <i>Eigenwertproblem</i> &amp; Déplacement—de Knight?") == (
        "quantisierung",
        "als",
        "eigenwertproblem",
        "deplacement",
        "de",
        "knight",
    )


def test_a_title_tag_states_the_work_s_title_without_the_site_s_name():
    assert words("Wellbeing cost of carbon") in stated(
        [], "Wellbeing cost of carbon | Global Sustainability | Cambridge Core"
    )


def test_a_title_tag_with_the_site_first_or_an_arxiv_number_states_the_title():
    page = stated([], "[1902.02534] Crowdsourcing open citations with CROCI")
    assert words("Crowdsourcing open citations with CROCI") in page
    assert same_work(
        ["Inhibitory Control Development: A Network Neuroscience Perspective"],
        [],
        stated([], "Frontiers | Inhibitory Control Development: A Network Neuroscience Perspective"),
    )


def test_an_og_title_with_the_site_s_name_states_the_title():
    assert same_work(
        ["The Strength Model of Self-Control"], [], stated(["The Strength Model of Self-Control | JSTOR"], None)
    )


def test_a_title_with_a_spaced_dash_of_its_own_is_joined_back():
    assert same_work(
        ["Understanding human - bat interactions in NSW"],
        [],
        stated([], "BMC Veterinary Research | Understanding human - bat interactions in NSW"),
    )


def test_the_registered_title_on_the_page_is_the_same_work():
    assert same_work(["Phonon Magnetochiral Effect"], [], stated(["Phonon Magnetochiral Effect"], None))


def test_the_registered_title_with_its_subtitle_on_the_page_is_the_same_work():
    assert same_work(
        ["The narrow channel of quantitative easing"],
        ["Evidence from YCC down under"],
        stated(["The Narrow Channel of Quantitative Easing: Evidence from YCC Down Under"], None),
    )


def test_a_page_leaving_out_the_registered_subtitle_is_the_same_work():
    assert (
        same_work(["Trust in automation: integrating empirical evidence"], [], stated(["Trust in automation"], None))
        is False
    )  # three words: too short to stand alone
    assert same_work(
        ["Moving toward a grand theory of development: in memory of Esther Thelen"],
        [],
        stated(["Moving Toward a Grand Theory of Development"], None),
    )


def test_another_work_s_title_is_not_the_same_work():
    assert not same_work(
        ["Phonon Magnetochiral Effect"],
        [],
        stated(["Tearing Instability and Current-Sheet Disruption in the Turbulent Dynamo"], None),
    )


@pytest.mark.parametrize(
    "page_title",
    [
        "Reply to: Phonon Magnetochiral Effect",
        "Erratum: Phonon Magnetochiral Effect | Phys. Rev. Lett.",
        "Comment on \u201cPhonon Magnetochiral Effect\u201d",
    ],
)
def test_a_page_whose_title_only_contains_the_registered_one_is_another_work(page_title):
    assert not same_work(["Phonon Magnetochiral Effect"], [], stated([page_title], page_title))


@pytest.mark.parametrize("generic", ["Editorial", "Book reviews", "Letters to the editor", "Front matter"])
def test_a_title_too_short_to_name_one_work_never_matches(generic):
    assert not same_work([generic], [], stated([generic], generic))


@pytest.mark.skipif(not PAGES.is_dir(), reason="no landing-page corpus")
def test_real_pages_state_their_title_as_the_matcher_reads_them():
    cases = {
        "013-": "Phonon Magnetochiral Effect",
        "007-": "How many data points is a prompt worth?",
        "054-": "Wellbeing cost of carbon",
    }
    for number, registered in cases.items():
        [page] = PAGES.glob(f"{number}*.html")
        assert same_work([registered], [], read_page(page.read_bytes())["titles"]), page.name
