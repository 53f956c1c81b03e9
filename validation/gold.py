"""The golden standard of one criterion from its labels (pure), by the project's one majority
rule (``annotation.majority``): the gold of a unit's criterion (``gold_from_votes``) and a
senior's decision against the raters (``majority``).
"""

from collections.abc import Sequence

from annotation.majority import NO_MAJORITY, majority_code

ADJUDICATED = "adjudicated"


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
