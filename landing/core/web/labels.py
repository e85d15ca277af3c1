"""Labels from the outside world (domains, prefixes, member ids) as text that is safe to print or draw."""

import unicodedata


def _escape(char: str) -> str:
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def printable(text: str) -> str:
    """The text with every control, format (bidi overrides, zero widths), private, unassigned or line/paragraph
    separator character shown as a Python escape, so it cannot move a terminal's cursor or reorder a page.

    >>> printable("a\\x1bcred.evil.example"), printable("a\\u202eb")
    ('a\\\\x1bcred.evil.example', 'a\\\\u202eb')
    """
    if text.isprintable():  # the usual label: ASCII letters, digits and punctuation, or printable Unicode
        return text
    return "".join(
        _escape(char) if unicodedata.category(char)[0] == "C" or unicodedata.category(char) in ("Zl", "Zp") else char
        for char in text
    )
