"""The majority rule, and the golden standard of one criterion from its labels (pure).

One rule for every majority in the project: the category more raters chose than any other,
none when the top categories tie. The gold of a unit's criterion (``gold_from_votes``), a
senior's decision against the raters (``majority``) and the statistics' array gold
(``validation.statistics.raters.gold_majority``) all apply ``majority_code``. Plain Python: it
runs in an expert's submit, which must not load numpy.
"""

from collections.abc import Sequence

ADJUDICATED = "adjudicated"
NO_MAJORITY = -1


def majority_code(counts: Sequence[int]) -> int:
    """Of per-category counts, the category chosen more often than every other one, or
    ``NO_MAJORITY`` where the top categories tie (counts of zero tie too)."""
    top = max(counts, default=0)
    winners = [code for code, count in enumerate(counts) if count == top]
    return winners[0] if len(winners) == 1 else NO_MAJORITY


def majority(votes: Sequence[bool]) -> bool | None:
    """The majority of binary labels, or None when there is none (no votes, or a tie)."""
    met = sum(1 for v in votes if v)
    code = majority_code([len(votes) - met, met])
    return None if code == NO_MAJORITY else bool(code)


def gold_from_votes(votes: Sequence[bool]) -> tuple[bool, str]:
    """Majority of an odd number of labels, with provenance "k/n" style: "3/3" or "2/1"."""
    n = len(votes)
    if n == 0 or n % 2 == 0:
        raise ValueError(f"a majority needs an odd number of labels, got {n}")
    gold = bool(majority(votes))
    agreeing = sum(1 for v in votes if bool(v) == gold)
    provenance = f"{n}/{n}" if agreeing == n else f"{agreeing}/{n - agreeing}"
    return gold, provenance
