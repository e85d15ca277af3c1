"""Shares of a sample and how far to trust them: Wilson intervals and a one-sided test of a fall between two
samples. Counts in, numbers out.

The test of a fall is SciPy's (Fisher's exact test). SciPy's statistics are slow to import (bench/README.md "Figures
behind choices"), in every process that exports (each export runs in a child process of its own), where nearly every
export draws an interval and few test a fall: so `fell` imports SciPy when first called, and the two closed forms,
Wilson's score interval and the chance that independent draws all miss, are written here with the standard library's
normal quantile (`statistics.NormalDist`). tests/core/publishing/test_proportions.py checks both against SciPy's own.
"""

from functools import lru_cache
from math import sqrt
from statistics import NormalDist

LEVEL = 0.95  # the confidence of every interval the project shows
ALARM = 0.001  # the chance, per version, that noise alone raises any alarm among all the tests of a kind


@lru_cache(maxsize=1 << 14)  # the alerts of a version repeat the same counts
def interval(hits: int, of: int, level: float = LEVEL) -> tuple[float, float]:
    """Wilson's interval for the share hits/of: (low, high); (0.0, 1.0) for an empty sample.

    >>> [round(x, 3) for x in interval(12, 14)]
    [0.601, 0.96]
    >>> interval(0, 0)
    (0.0, 1.0)
    """
    if of <= 0:
        return (0.0, 1.0)
    z = NormalDist().inv_cdf(0.5 + level / 2)
    share, spread = hits / of, z * z / of
    middle = (share + spread / 2) / (1 + spread)
    half = z * sqrt(share * (1 - share) / of + spread / (4 * of)) / (1 + spread)
    return (max(0.0, middle - half), min(1.0, middle + half))


def fell(before_hits: int, before_of: int, now_hits: int, now_of: int) -> float:
    """The p-value of Fisher's exact test that the share now is lower than before (one-sided): small when a fall
    this large is unlikely to come from sampling the same share twice.

    >>> round(fell(14, 14, 12, 14), 3)  # 100% then 85.7% of 14: noise
    0.241
    >>> fell(90, 100, 40, 100) < 1e-6
    True
    """
    if before_of <= 0 or now_of <= 0:
        return 1.0
    from scipy.stats import fisher_exact

    table = [[now_hits, now_of - now_hits], [before_hits, before_of - before_hits]]
    return float(fisher_exact(table, alternative="less").pvalue)


def missed(share: float, draws: int) -> float:
    """The chance that `draws` DOIs drawn at random from a prefix miss every DOI of a pair that holds `share` of
    them: how likely a pair went unseen by sampling alone.

    >>> round(missed(0.5, 3), 3)
    0.125
    >>> missed(0.0, 10)
    1.0
    """
    return (1.0 - min(max(share, 0.0), 1.0)) ** max(draws, 0)


def beyond_noise(p_value: float, tests: int, level: float = ALARM) -> bool:
    """Whether a p-value stands out among `tests` made together (Bonferroni): at most `level` chance, per version,
    that any of them passes by sampling alone.

    >>> beyond_noise(1e-6, 300), beyond_noise(1e-5, 300), beyond_noise(0.0, 0)
    (True, False, True)
    """
    return p_value <= level / max(tests, 1)


def falls(series: list[tuple[int, int]], minimum: int, level: float = ALARM) -> list[bool]:
    """Which points of a trend, (hits, of) per version oldest first, fell from the point before beyond sampling noise
    (`fell`, Bonferroni over the trend's steps), each of the two on at least `minimum`: what a trend may mark.

    >>> falls([(14, 14), (12, 14), (30, 30), (5, 30)], minimum=20)
    [False, False, False, True]
    """
    steps = max(len(series) - 1, 1)
    marked = [False]
    for (had, before), (has, now) in zip(series, series[1:]):
        enough = min(before, now) >= minimum
        marked.append(enough and beyond_noise(fell(had, before, has, now), steps, level))
    return marked[: len(series)]
