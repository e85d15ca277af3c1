"""Candidate DOIs cut from a landing-page URL or a string: each DOI occurrence, cut where URL junk may start, then
without the tails sites append. Linear in the input: each occurrence is read for a bounded length, a bounded number
of tails is stripped, and the occurrences read stop once enough candidates are found."""

import re
from urllib.parse import unquote

from landing.core.pids.doi import normalise, shaped, unwrap

# Each candidate costs the caller one Handle API request. A real URL gives a handful per DOI in it (at most
# 7 in the tests, SICI and tracking junk included); 20 bounds the cost of a URL packed with DOIs or junk.
MAX_URL_CANDIDATES = 20
# An occurrence is read up to whitespace, for at most this many characters: no DOI is that long (the longest real
# ones, SICIs, are near 100; find_dois reads no more either). Past it only the cuts at a separator inside count.
LONGEST = 1000
# Tails stripped from one cut at most: real URLs stack four (bioRxiv's <doi>v1.full.pdf+html).
MAX_TAILS = 8
# DOI occurrences read in one form of the input: a real URL holds a few; a line of junk holds thousands.
MAX_OCCURRENCES = 100
_OCCURRENCE = re.compile(r"(?<![\w.\-])10\.\d{4,9}/")
_SPACE = re.compile(r"\s")
_SYMBOL = re.compile(r"[^\x21-\x7e]")
_JSESSIONID = re.compile(r";jsessionid=[^/?#&;]*")  # Java servlet session in the path (Wiley, older Atypon)
# What sites append to a DOI in their URLs; stripped repeatedly from the end, each strip one more candidate.
SUFFIXES = (
    "/abstract",
    "/full",
    "/pdf",
    "/epdf",
    "/references",
    "/figures",
    "/citedby",
    "/suppinfo",  # Wiley Online Library
    "/fulltext",
    "/metrics",  # Frontiers (/full, /pdf too), Springer's old /fulltext.html
    "/html",  # De Gruyter /document/doi/<doi>/html (and /pdf)
    "/suppl_file",  # ACS, Taylor & Francis: /doi/suppl/<doi>/suppl_file/<name>
    ".full",
    ".abstract",
    ".short",  # HighWire sites (bioRxiv, medRxiv): <doi>v1.full, .abstract
    ".pdf",
    ".html",
    ".htm",
    ".xml",  # files named after the DOI (Springer content/pdf/<doi>.pdf, JATS XML)
    ".supplementary-material",  # HighWire's supplements page
    "+html",  # HighWire's PDF in a frame (<doi>v1.full.pdf+html)
)


def _version_start(text: str, end: int) -> int | None:
    """Where bioRxiv/medRxiv's version (…972935v2) starts before end, else None; `.v1` of figshare DOIs is kept."""
    start = end
    while start > 0 and text[start - 1].isdecimal():
        start -= 1
    if start == end or start < 2 or text[start - 1] != "v" or not text[start - 2].isdecimal():
        return None
    return start - 1


def stripped(doi: str) -> list[str]:
    """doi, then doi without each tail stripped from its end in turn (at most MAX_TAILS), never into its own slash.

    >>> stripped("10.1234/a1v2.full.pdf")
    ['10.1234/a1v2.full.pdf', '10.1234/a1v2.full', '10.1234/a1v2', '10.1234/a1']
    """
    floor, end, out = doi.index("/") + 1, len(doi), [doi]
    if not doi.endswith(SUFFIXES) and not doi[-1:].isdecimal():  # most cuts: no tail, no version (one C call)
        return out
    changed = True
    while changed and len(out) <= MAX_TAILS:
        changed = False
        for suffix in SUFFIXES:  # indices, not copies: a tail repeated 10,000 times is cut in linear time
            if len(out) <= MAX_TAILS and doi.endswith(suffix, 0, end) and end - len(suffix) > floor:
                end, changed = end - len(suffix), True
                out.append(doi[:end])
        version = _version_start(doi, end) if len(out) <= MAX_TAILS else None
        if version is not None:
            end, changed = version, True
            out.append(doi[:end])
    return out


def _cuts(doi: str, whole: bool) -> set[str]:
    """doi, and doi cut at each place where URL junk may start after the DOI's own slash; when doi is not whole (its
    occurrence ran on past LONGEST), only the cuts at a separator inside it, since its end is no end."""
    head, _, tail = doi.partition("/")
    out = set()
    for separator in "#?&;":
        out.add(head + "/" + tail.split(separator, 1)[0])
    out.add(head + "/" + _SYMBOL.split(tail, maxsplit=1)[0])  # an emoji or other symbol after it
    if whole:
        out.add(doi)
        out.add(unwrap(doi))  # a sentence's full stop, a closing bracket it did not open
        out.add(head + "/" + tail.rsplit(";", 1)[0])  # SICIs hold `;` themselves: keep all but the last part
    else:
        out.discard(doi)
    for cut in list(out):
        h, _, t = cut.partition("/")
        out.update({h + "/" + t.split("/", 1)[0], h + "/" + t.rsplit("/", 1)[0]})
    if whole:
        return out
    out.add(head + "/" + tail.split("/", 1)[0])  # its first segment ends at a slash, not where reading stopped
    return {cut for cut in out if len(cut) < len(doi)}


def _variants(rest: str, whole: bool) -> list[str]:
    found = set()
    for cut in _cuts(_JSESSIONID.sub("", rest), whole):  # a session id is never part of a DOI
        found.update(normalise(c) for c in stripped(cut))
    good = {c for c in found if shaped(c) and not c.endswith("/")}
    return sorted(good, key=lambda c: (-len(c), c))


def url_candidates(url: str, cap: int = MAX_URL_CANDIDATES) -> list[str]:
    """Candidate DOIs embedded in a landing-page URL, or in text (a DOI with junk after it, a sentence, a
    reference): per DOI occurrence, longest first; at most cap.

    >>> url_candidates("https://www.biorxiv.org/content/10.1101/2020.03.02.972935v2.full")
    ['10.1101/2020.03.02.972935v2.full', '10.1101/2020.03.02.972935v2', '10.1101/2020.03.02.972935']
    >>> url_candidates("Foo bar 10.1088/1748-9326/11/4/048002. Foo bar")[:2]
    ['10.1088/1748-9326/11/4/048002.', '10.1088/1748-9326/11/4/048002']
    """
    once = unquote(url)
    out: dict[str, None] = {}
    for text in dict.fromkeys((url, once, unquote(once))):  # as written, decoded, double-decoded
        for number, match in enumerate(_OCCURRENCE.finditer(text)):
            if len(out) >= cap or number == MAX_OCCURRENCES:
                break
            # A DOI inside the rest of an earlier one (…/10.1234/a?ref=10.5678/b) is an occurrence of its own.
            start = match.start()
            space = _SPACE.search(text, start, start + LONGEST + 1)
            end = space.start() if space else min(len(text), start + LONGEST + 1)
            out.update(dict.fromkeys(_variants(text[start:end].lower(), end - start <= LONGEST)))
    return list(out)[:cap]


def names_below(doi: str, url: str) -> bool:
    """Whether the URL goes on past the DOI to a path of its own (a book's chapter, a reference work's entry),
    beyond the tails sites append to a work's own page: then the URL is about something the DOI only contains.

    >>> names_below("10.1093/acrefore/9780190201098.001.0001",
    ...             "https://oxfordre.com/view/10.1093/acrefore/9780190201098.001.0001/acrefore-9780190201098-e-1357")
    True
    >>> names_below("10.1002/ab.1", "https://x.example/doi/10.1002/ab.1/abstract?x=1")
    False
    """
    text = re.split(r"[?#]", unquote(url).lower(), maxsplit=1)[0]
    at = text.find(doi)
    if at < 0:
        return False
    rest = _JSESSIONID.sub("", text[at + len(doi) :])
    return rest.startswith("/") and bool(rest.strip("/")) and doi not in stripped(doi + rest)
