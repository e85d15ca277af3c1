"""Event-shaped output (docs/matching.md "Event-shaped output"): one input's result as the Events an Event Data
consumer reads, one per DOI found, with the project's evidence record beside them; the JSON Schema of the line is
landing/schemas/event.schema.json."""

from urllib.parse import urlsplit

from landing.core.matching.readings import as_url, cleaned
from landing.core.matching.urls import strip_tracking
from landing.core.pids.doi import express

# What `scrapy match --format` and the service's `format` take: the flat result (the default), or Events.
FORMATS = ("flat", "event")
# Methods whose input named no landing page (a DOI, a PII): the Percolator's obj.url is then the pid itself.
_NO_PAGE = ("doi-literal", "pii")


def citing_page(url: str) -> str:
    """The citing page's subj_id: its URL without tracking parameters (the page is not read, so no canonical link);
    ValueError for anything but an http(s) URL with a host.

    >>> citing_page("https://blog.example.org/post/7?utm_source=rss&p=2")
    'https://blog.example.org/post/7?p=2'
    >>> citing_page("blog.example.org/post/7")
    Traceback (most recent call last):
    ...
    ValueError: subj='blog.example.org/post/7': give the citing page's http(s) URL
    """
    parts = urlsplit(url)
    if parts.scheme.lower() not in ("http", "https") or not parts.netloc:
        raise ValueError(f"subj={url!r}: give the citing page's http(s) URL")
    return strip_tracking(url)


def unshaped(form, subj) -> str | None:
    """Why a result cannot be given in format `form` about the citing page `subj` (None: none named), as the service
    and the stream consumer say it; None when it can.

    >>> unshaped("event", "https://blog.example.org/1") is None
    True
    >>> unshaped("flat", "https://blog.example.org/1")
    'subj names the citing page of Events: give format=event'
    >>> unshaped("xml", None)
    "format='xml': use flat or event"
    """
    if form not in FORMATS:
        return f"format={form!r}: use {' or '.join(FORMATS)}"
    if subj is None:
        return None
    if form != "event":
        return "subj names the citing page of Events: give format=event"
    try:
        citing_page(subj if isinstance(subj, str) else "")
    except ValueError:
        return f"subj={subj!r}: give the citing page's http(s) URL"
    return None


def event_line(result: dict, subj: str | None = None) -> dict:
    """The line for one input's result (a result's JSON, landing.core.matching.results): its Events, one per DOI found in text
    order (none without one), each about `subj`, the citing page (None: not given); the evidence record beside them.

    >>> line = event_line({"input": "10.1234/AB", "doi": "10.1234/ab", "method": "doi-literal",
    ...                    "verification": "literal", "url": None, "subj_id": None, "evidence": []})
    >>> line["events"]
    [{'subj_id': None, 'obj_id': 'https://doi.org/10.1234/ab', 'obj': {'pid': 'https://doi.org/10.1234/ab', \
'url': 'https://doi.org/10.1234/ab', 'method': 'doi-literal', 'verification': 'literal'}}]
    >>> event_line({"input": "x", "doi": None, "evidence": []})
    {'input': 'x', 'events': [], 'evidence': {'matches': [], 'attempts': []}}
    """
    found = result.get("matches")
    if found is None:  # one piece: its own match, if any
        found = [result] if result.get("doi") else []
    return {
        "input": result["input"],
        "events": [event(match, subj) for match in found],
        "evidence": {"matches": [_record(match) for match in found], "attempts": list(result.get("evidence", []))},
    }


def event(match: dict, subj: str | None = None) -> dict:
    """The Event of one match: the DOI as obj_id and obj.pid, the input as cited as obj.url (the pid itself when the
    input was a DOI or a PII), method and verification in obj; subj_id and subj for the citing page, when given."""
    pid = express(match["doi"], "https-doi")
    cited = pid if match["method"] in _NO_PAGE else as_url(cleaned(match["input"])) or match["input"]
    out: dict = {"subj_id": None if subj is None else citing_page(subj), "obj_id": pid}
    if subj is not None:
        out["subj"] = {"pid": out["subj_id"], "url": subj}
    out["obj"] = {"pid": pid, "url": cited, "method": match["method"], "verification": match["verification"]}
    return out


def _record(match: dict) -> dict:
    """The project's record of one match, beside its Event: the finer checks and the landing page's own URLs, named
    so that none passes for an Event field."""
    return {
        "obj_id": express(match["doi"], "https-doi"),
        "checks": list(match.get("checks", [])),
        "landing_page_url": match.get("url"),
        "landing_page_id": match.get("subj_id"),
    }
