"""The counts of one report key (a prefix, a domain, a member): its DOIs, their pages' meta-tag correctness, their
visits' failure classes, and each related key (a prefix's domains, a domain's prefixes) with how visits went there."""

from landing.core.publishing.report_keys import CORRECTNESS

# A report key's flags for a related key: a page there stated the DOI; a visit there did not reach such a page; a
# page there had the right meta tag.
GOOD, BAD, CONFIRMED = 1, 2, 4


class Tally:
    """Counts and related keys for one report key; sized by distinct pairs, not by docs."""

    # A full run holds one per prefix, domain and member while the crawl closes: each related key is one dict entry
    # with its flags, and the dicts stay empty, so unallocated, until used.
    __slots__ = ("dois", "correctness", "errors", "related")

    def __init__(self):
        self.dois = 0
        self.correctness = {}
        self.errors = {}
        self.related = {}  # other key -> GOOD | BAD, and CONFIRMED

    def add(self, doc: dict, other: str | None, reached: bool, found: bool):
        """Count one analysis; `other`: the related key its visit led to (None: none), `reached`: whether the visit
        reached a page there, `found`: whether the page stated the DOI anywhere."""
        self.dois += 1
        correctness = doc.get("analysis/meta-tag-correctness")
        if correctness is not None:
            self.correctness[correctness] = self.correctness.get(correctness, 0) + 1
        error = doc.get("snapshot/error")
        if error is not None:
            self.errors[error] = self.errors.get(error, 0) + 1
        if other is not None:  # followed there: a page that states the DOI is good, anything else bad
            flags = GOOD if reached and found else BAD
            flags |= CONFIRMED if reached and correctness == "ok" else 0
            self.related[other] = self.related.get(other, 0) | flags

    def having(self, flag: int) -> list[str]:
        """The related keys with `flag`, sorted."""
        return sorted(other for other, flags in self.related.items() if flags & flag)

    def correctness_in_order(self) -> dict[str, int]:
        """The correctness counts, CORRECTNESS's first (0 when none), then any other value by name.

        >>> tally = Tally()
        >>> for correctness in ("ok", "odd", "ok"):
        ...     tally.add({"analysis/meta-tag-correctness": correctness}, None, True, True)
        >>> tally.correctness_in_order()
        {'ok': 2, 'incorrect': 0, 'conflict': 0, 'missing': 0, 'odd': 1}
        """
        counted = {name: self.correctness.get(name, 0) for name in CORRECTNESS}
        counted.update(sorted((k, v) for k, v in self.correctness.items() if k not in counted))
        return counted

    def report(self, kind: str, key: str, related: str) -> dict:
        """The tally as a report document of `kind` (landing.core.publishing.report_keys), its related keys named `related`."""
        return {
            "report/kind": kind,
            "report/key": key,
            "report/dois": self.dois,
            f"report/good-{related}": self.having(GOOD),
            f"report/bad-{related}": self.having(BAD),
            "report/correctness": self.correctness_in_order(),
            "report/errors": dict(sorted(self.errors.items())),
        }
