"""The golden standard of one criterion from its labels (pure), by the project's one majority
rule (``annotation.majority``): the gold of a unit's criterion (``gold_from_votes``), of a
pair (``gold_from_choices``) and a senior's decision against the raters (``majority``).
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


PAIR_CHOICES = ("a", "b", "tie")  # a pair's choices in its stored order


def gold_from_choices(choices: Sequence[str]) -> tuple[str, str] | None:
    """The majority of a pair's choices with its provenance ("3/3" or "2/1"), or None when
    no choice has a majority (three raters split three ways: a senior decides)."""
    counts = [sum(1 for c in choices if c == option) for option in PAIR_CHOICES]
    code = majority_code(counts)
    if code == NO_MAJORITY:
        return None
    agreeing = counts[code]
    n = len(choices)
    return PAIR_CHOICES[code], f"{n}/{n}" if agreeing == n else f"{agreeing}/{n - agreeing}"
