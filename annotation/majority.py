"""The majority rule, once for the whole project (pure, plain Python: it runs in an expert's
submit, which must not load numpy).

The category more raters chose than any other, none when the top categories tie. A study's
gold (``validation.gold``), a judge ensemble (``validation.ensemble``), the statistics' array
gold (``validation.statistics.raters.gold_majority``), a draft's difficulty and the senior
panel's majority (``annotation.construction_rules``) all apply ``majority_code``; each says
what its tie means.
"""

from collections.abc import Sequence

NO_MAJORITY = -1


def majority_code(counts: Sequence[int]) -> int:
    """Of per-category counts, the category chosen more often than every other one, or
    ``NO_MAJORITY`` where the top categories tie (counts of zero tie too)."""
    top = max(counts, default=0)
    winners = [code for code, count in enumerate(counts) if count == top]
    return winners[0] if len(winners) == 1 else NO_MAJORITY
