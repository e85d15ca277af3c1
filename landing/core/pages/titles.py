"""Is a page about the work a DOI names? Its stated title against the title registered for the DOI.

The matcher's check for pages that state a DOI the resolver sends elsewhere: an aggregator's record, a mirror,
the abstract of a full text. A misstated DOI names another work, with another title, so a title match is
evidence about the page, not about the site.
"""

import html
import re
import unicodedata

# Meta tags that carry the work's own title (the corpus's pages write og:title, citation_title, dc.title and
# twitter:title most); citation_journal_title and the like name the container, never the work.
TITLE_META_NAMES = frozenset(
    {
        "citation_title",
        "dc.title",
        "dc:title",
        "dcterms.title",
        "og:title",
        "twitter:title",
        "prism.title",
        "eprints.title",
        "bepress_citation_title",
    }
)

# A registered title this short could be many works' ("Editorial", "Book reviews", "Letters to the editor").
MIN_WORDS, MIN_LETTERS = 3, 20

_TAG = re.compile(r"<[^>]*>")
_WORD = re.compile(r"\w+")
# Where a <title> joins the work's title to the site's ("Title | Journal", "Title - Site", "Title : Nature",
# "[1902.02534] Title"); runs of segments are joined back, for titles with a spaced dash of their own. Never an
# unspaced colon: "Erratum: <title>" and "Reply to: <title>" are other works than <title>.
_SEPARATOR = re.compile(r"\s+[-\u2013\u2014]\s+|\s*[|\u00b7]\s*|\s+:\s+|^\s*\[[^\]]*\]\s*")


def words(title: str) -> tuple[str, ...]:
    """A title as its words: markup, entities, accents, case and punctuation gone."""
    text = unicodedata.normalize("NFKD", html.unescape(_TAG.sub(" ", html.unescape(title))))
    text = "".join(c for c in text if not unicodedata.combining(c)).casefold()
    return tuple(_WORD.findall(text.replace("_", " ")))


def distinctive(title: tuple[str, ...]) -> bool:
    """Long enough to name one work."""
    return len(title) >= MIN_WORDS and sum(map(len, title)) >= MIN_LETTERS


def stated(meta_titles: list[str], title_tag: str | None) -> list[tuple[str, ...]]:
    """The titles a page states for itself: each run of the segments of its title meta tags and its <title> (an
    og:title carries the site's name as often as a <title> does)."""
    found = []
    for text in [*meta_titles, *([title_tag] if title_tag else [])]:
        segments = [s for s in map(words, _SEPARATOR.split(html.unescape(text))) if s]
        found += [sum(segments[i:j], ()) for i in range(len(segments)) for j in range(i + 1, len(segments) + 1)]
    return list(dict.fromkeys(t for t in found if t))


def same_work(registered: list[str], subtitles: list[str], page: list[tuple[str, ...]]) -> bool:
    """Whether the page states one of the DOI's registered titles, alone or with its subtitle.

    A page's title that is the start of a longer registered one (the page leaves the subtitle out) counts when it
    is distinctive on its own; a page's title that only contains the registered one ("Reply to: <title>") never.
    """
    tails = [tail for tail in map(words, subtitles) if tail]
    for title in map(words, registered):
        if not distinctive(title):
            continue
        accepted = {title, *(title + tail for tail in tails)}
        for own in page:
            if own in accepted or (distinctive(own) and len(own) >= 4 and title[: len(own)] == own):
                return True
    return False
