"""The stream consumer's rules on entries (docs/service.md "Event streams"): what an input entry asks for, or the
error result it gets instead, and the artifact version an answer names."""

from landing.core.matching.cascade import FETCHES
from landing.core.matching.events import unshaped
from landing.core.matching.input_lines import StreamInput, error, text_of

__all__ = ["StreamInput", "error", "read_entry", "result_version"]


def read_entry(fields: dict, max_input: int) -> StreamInput | dict:
    """The input an entry's fields (bytes or str, as Redis gave them) ask for, or the error result it gets instead.

    >>> read_entry({b"q": b"10.1234/x"}, 100)
    StreamInput(text='10.1234/x', fetch='known', format='flat', subj=None)
    >>> read_entry({"q": "10.1234/x", "fetch": "none", "format": "event", "subj": "https://blog.example.org/1"}, 100)
    StreamInput(text='10.1234/x', fetch='none', format='event', subj='https://blog.example.org/1')
    >>> read_entry({b"fetch": b"all"}, 100)
    {'error': 'the entry has no field q (the input to match)', 'status': 400}
    >>> read_entry({b"q": b"10.1234/x", b"fetch": b"some"}, 100)
    {'error': "fetch='some': use none, known or all", 'status': 400}
    >>> read_entry({b"q": b"x" * 101}, 100)
    {'error': 'q has 101 characters: at most 100 are answered', 'status': 413}
    >>> read_entry({b"q": b"10.1234/x", b"subj": b"https://blog.example.org/1"}, 100)
    {'error': 'subj names the citing page of Events: give format=event', 'status': 400}
    """
    named = {_text(key): value for key, value in fields.items()}
    text = _text(named.get("q"))
    if text is None:
        return error("the entry has no field q (the input to match)", 400)
    if not text.strip():
        return error("q is empty", 400)
    if len(text) > max_input:
        return error(f"q has {len(text)} characters: at most {max_input} are answered", 413)
    fetch = _text(named.get("fetch", "known"))
    if fetch not in FETCHES:
        return error(f"fetch={fetch!r}: use none, known or all", 400)
    form, subj = _text(named.get("format", "flat")), _text(named.get("subj"))
    refused = unshaped(form, subj)
    if refused is not None:
        return error(refused, 400)
    return StreamInput(text, fetch, form, subj)


def result_version(result: dict) -> str | None:
    """The artifact version a result's match was decided with (its "artifact" evidence step; in free text, the first
    piece matched), None when nothing matched or no artifact was loaded.

    >>> result_version({"evidence": [{"step": "artifact", "outcome": "20261126T0400Z"}]})
    '20261126T0400Z'
    >>> result_version({"evidence": [], "matches": [{"evidence": [{"step": "artifact", "outcome": "none"}]}]})
    >>> result_version({"input": "10.1234/x", "events": [], "evidence": {"attempts": [{"step": "artifact",
    ...                 "outcome": "20261126T0400Z"}]}})
    '20261126T0400Z'
    >>> result_version({"error": "q is empty", "status": 400})
    """
    for found in (result, *(result.get("matches") or ())):
        evidence = found.get("evidence") or ()
        if isinstance(evidence, dict):  # an Event-shaped line: the record beside its Events
            evidence = evidence.get("attempts") or ()
        for record in evidence:
            if record.get("step") == "artifact" and record.get("outcome") not in (None, "none"):
                return str(record["outcome"])
    return None


def _text(value):
    """value as str (bytes read as every input is: landing.core.matching.input_lines.text_of); None stays None."""
    return text_of(value) if isinstance(value, bytes) else value


def entry_order(entry_id: str) -> tuple[int, int]:
    """A stream entry id as the (milliseconds, sequence) pair Redis orders entries by.

    >>> entry_order("1700000000000-3") < entry_order("1700000000000-12")
    True
    """
    ms, _, seq = entry_id.partition("-")
    return int(ms), int(seq or 0)


def resumed_at(answered, entries: list[str]) -> tuple[str, frozenset[str]]:
    """Where a consumer group lost while its input stream survives starts again, and the entries after that point
    that were answered already (their redelivery is acknowledged with no second output). answered: the input ids the
    output stream's last entries name; entries: the input stream's ids from the oldest of those to the newest. The
    group starts just before the first entry the output does not name ("0": nothing answered, start from the first).

    >>> resumed_at([], [])
    ('0', frozenset())
    >>> resumed_at(["1-0", "2-0", "3-0"], ["1-0", "2-0", "3-0"])
    ('3-0', frozenset())
    >>> point, skipped = resumed_at(["1-0", "3-0", "4-0"], ["1-0", "2-0", "3-0", "4-0"])
    >>> point, sorted(skipped)
    ('1-18446744073709551615', ['3-0', '4-0'])
    """
    done = set(answered)
    if not done:
        return "0", frozenset()
    missing = [entry_id for entry_id in entries if entry_id not in done]
    if not missing:
        return max(done, key=entry_order), frozenset()
    first = min(missing, key=entry_order)
    ms, seq = entry_order(first)
    before = f"{ms}-{seq - 1}" if seq else f"{ms - 1}-{2**64 - 1}"
    return before, frozenset(entry_id for entry_id in done if entry_order(entry_id) > (ms, seq))
