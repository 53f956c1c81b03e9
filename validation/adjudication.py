"""Which criteria of a fully rated unit need a senior expert, and what a decision changed (pure).

A study chooses the abilities whose 2/1 splits a senior decides (``"*"`` for every criterion);
a unanimous criterion never goes to a senior, and neither does a criterion of an ability the
study did not choose: its majority is the gold, as before.
"""

from collections.abc import Iterable, Mapping, Sequence

from benchmark.taxonomy import BY_CODE
from validation.gold import majority

ALL = "*"


class UnknownAbility(ValueError):
    """An adjudication choice that is neither an ability code nor ``"*"``."""


def splits_parse(codes: Iterable[str] | str) -> list[str]:
    """The cleaned list of ability codes (or ``["*"]``) from a list or a comma-separated text.

    Unknown codes are refused with the list of valid ones, so a typo never silently turns
    adjudication off for a criterion.
    """
    if isinstance(codes, str):
        codes = codes.split(",")
    wanted: list[str] = []
    for code in codes:
        code = str(code).strip()
        if code and code not in wanted:
            wanted.append(code)
    unknown = [c for c in wanted if c != ALL and c not in BY_CODE]
    if unknown:
        raise UnknownAbility(
            f"unknown ability code(s) {', '.join(unknown)}; use {ALL!r} or any of "
            f"{', '.join(BY_CODE)}"
        )
    return [ALL] if ALL in wanted else wanted


def tally(votes: Sequence[bool]) -> tuple[int, int]:
    """(met, not met) among the votes: counts only, never who cast which."""
    met = sum(1 for v in votes if v)
    return met, len(votes) - met


def split_items(
    *,
    votes: Mapping[int, Sequence[bool]],
    abilities: Mapping[int, str],
    chosen: Sequence[str],
    raters: int = 3,
) -> list[int]:
    """Rubric item ids whose ``raters`` votes split (not unanimous) on a chosen ability."""
    if not chosen:
        return []
    every = ALL in chosen
    split = []
    for item_id, item_votes in votes.items():
        if len(item_votes) != raters:
            continue
        met, not_met = tally(item_votes)
        if met and not_met and (every or abilities.get(item_id) in chosen):
            split.append(item_id)
    return sorted(split)


def overturned(*, votes: Sequence[bool], decision: bool) -> bool | None:
    """Whether the senior's decision differs from the raters' majority (None: no majority)."""
    held = majority(votes)
    return None if held is None else held != decision
