"""`scrapy match --evaluate`: how many labelled inputs each method and verification matched rightly or wrongly."""

from collections import Counter

from landing.core.matching.readings import METHODS, VERIFICATIONS


def tabulate(pairs) -> list[tuple]:
    """[(method, verification, right, wrong)] plus ("no match", "", 0, count), from (expected DOI, result) pairs."""
    right, wrong, none = Counter(), Counter(), 0
    for expected, result in pairs:
        if not result or not result.get("doi"):
            none += 1
            continue
        key = (result["method"], result["verification"])
        (right if result["doi"] == (expected or "").lower() else wrong)[key] += 1
    order = {(m, v): (METHODS.index(m), VERIFICATIONS.index(v)) for m in METHODS for v in VERIFICATIONS}
    keys = sorted(set(right) | set(wrong), key=lambda k: order.get(k, (99, 99)))
    return [(m, v, right[(m, v)], wrong[(m, v)]) for m, v in keys] + [("no match", "", 0, none)]


def levels(rows) -> list[tuple]:
    """[(verification, right, wrong)] for each of the seven, best first, from tabulate's rows (every method summed).

    >>> levels([("pii", "lookup", 3, 0), ("landing-page-url", "lookup", 1, 1), ("no match", "", 0, 2)])[1]
    ('lookup', 4, 1)
    """
    right, wrong = Counter(), Counter()
    for method, verification, r, w in rows:
        if method != "no match":
            right[verification] += r
            wrong[verification] += w
    return [(v, right[v], wrong[v]) for v in VERIFICATIONS]


def render_table(rows) -> str:
    """A Markdown table with totals, ready for the docs (docs/matching.md "Accuracy")."""
    none = rows[-1][3]  # the last row is ("no match", "", 0, count)
    total = sum(r + w for _, _, r, w in rows[:-1]) + none
    lines = ["| method | verification | right DOI | wrong DOI | share of inputs |", "|---|---|---:|---:|---:|"]
    for method, verification, right, wrong in rows:
        if method == "no match":
            lines.append(f"| no match | | | | {wrong / max(total, 1):.1%} ({wrong:,}) |")
        else:
            lines.append(
                f"| {method} | {verification} | {right:,} | {wrong:,} | {(right + wrong) / max(total, 1):.1%} |"
            )
    lines.append(
        f"| all | | {sum(r for _, _, r, _ in rows):,} | {sum(w for _, _, _, w in rows[:-1]):,} | {total:,} inputs |"
    )
    return "\n".join(lines)


def render_levels(rows) -> str:
    """A Markdown table per verification level, best first, with what a consumer who takes that level and every
    stronger one gets: its right and wrong DOIs, and the share of its DOIs that are wrong.

    >>> print(render_levels([("pii", "lookup", 3, 0), ("landing-page-url", "recognised-domain", 1, 1),
    ...                      ("no match", "", 0, 2)]).splitlines()[3])
    | lookup | 3 | 0 | 3 | 0 | 0.0% |
    """
    lines = [
        "| verification | right DOI | wrong DOI | right, this level or stronger | wrong, this level or stronger "
        "| wrong share, this level or stronger |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    right_so_far = wrong_so_far = 0
    for verification, right, wrong in levels(rows):
        right_so_far, wrong_so_far = right_so_far + right, wrong_so_far + wrong
        taken = right_so_far + wrong_so_far
        share = f"{wrong_so_far / taken:.1%}" if taken else "-"
        lines.append(f"| {verification} | {right:,} | {wrong:,} | {right_so_far:,} | {wrong_so_far:,} | {share} |")
    lines.append(f"| no match | | | | | {rows[-1][3]:,} inputs |")
    return "\n".join(lines)
