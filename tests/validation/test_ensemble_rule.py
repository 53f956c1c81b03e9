"""The ensemble judge's majority: members' met / not met vote, errors do not, a tie is an error."""

import pytest

from validation.ensemble import ensemble_verdict

MEMBERS = ("a", "b", "c")


@pytest.mark.parametrize(
    ("states", "expected"),
    [
        (("met", "met", "not_met"), "met"),
        (("not_met", "met", "not_met"), "not_met"),
        (("met", "met", "met"), "met"),
        (("met", "error", "met"), "met"),  # 2 of the 2 who voted
        (("met", None, "not_met"), "error"),  # a 1–1 tie
        (("error", None, "error"), "error"),  # nobody voted
    ],
)
def test_the_majority_of_those_who_voted(states, expected):
    state, reason = ensemble_verdict(members=MEMBERS, states=states)
    assert state == expected
    assert reason.startswith("ensemble")


def test_the_reasoning_names_the_votes_and_the_tie():
    assert ensemble_verdict(members=MEMBERS, states=("met", "met", "not_met"))[1] == (
        "ensemble majority 2/3 (a: met, b: met, c: not_met)"
    )
    assert ensemble_verdict(members=("a", "b"), states=("met", "not_met"))[1] == (
        "ensemble: a tie 1–1 (a: met, b: not_met)"
    )
    assert "no member gave a verdict" in ensemble_verdict(members=("a",), states=(None,))[1]
