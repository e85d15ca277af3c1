"""`scrapy match --evaluate`: how many labelled URLs each method and verification matched rightly or wrongly."""

from collections import Counter

from landing.core.matching import METHODS, VERIFICATIONS


def tabulate(pairs) -> list[tuple]:
    """[(method, verification, right, wrong)] plus ("no match", "", 0, count), from (expected DOI, result) pairs."""
    right, wrong, none = Counter(), Counter(), 0
    for expected, result in pairs:
        if not result or not result.get("doi"):
            none += 1
            continue
        key = (result["method"], result["verification"])
        (right if result["doi"] == expected.lower() else wrong)[key] += 1
    order = {(m, v): (METHODS.index(m), VERIFICATIONS.index(v)) for m in METHODS for v in VERIFICATIONS}
    keys = sorted(set(right) | set(wrong), key=lambda k: order.get(k, (99, 99)))
    return [(m, v, right[(m, v)], wrong[(m, v)]) for m, v in keys] + [("no match", "", 0, none)]


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
