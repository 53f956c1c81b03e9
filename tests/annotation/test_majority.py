"""The project's one majority rule (annotation.majority), and the construction tiers' use of it."""

import pytest

from annotation.construction_rules import difficulty_decide, panel_accepts
from annotation.majority import NO_MAJORITY, majority_code


@pytest.mark.parametrize(
    ("counts", "code"),
    [([2, 1], 0), ([1, 2], 1), ([0, 0], NO_MAJORITY), ([1, 1], NO_MAJORITY), ([], NO_MAJORITY),
     ([1, 1, 1], NO_MAJORITY), ([0, 1, 2], 2), ([2, 2, 1], NO_MAJORITY), ([0, 3, 0], 1)],
)  # fmt: skip
def test_the_category_chosen_more_than_every_other_wins_and_a_top_tie_has_none(counts, code):
    assert majority_code(counts) == code


def test_a_tied_difficulty_is_hard_and_a_tied_majority_panel_returns_the_draft():
    assert difficulty_decide([("hard", "other"), ("normal", "")]) == ("hard", "other")
    assert difficulty_decide([("normal", ""), ("normal", ""), ("hard", "other")]) == ("normal", "")
    assert not panel_accepts(votes=["accept", "accept", "return", "return"], rule="majority")
    assert panel_accepts(votes=["accept", "accept", "return"], rule="majority")
