"""unit_outcome: what becomes of a unit, decided from its votes alone (pure)."""

from validation.outcome import Gold, NeedsSenior, Policy, Settled, Waiting, unit_outcome

ABILITIES = {1: "warmth", 2: "curiosity"}
SPLIT = {1: [True, True, False], 2: [False, False, False]}


def outcome(votes=SPLIT, ratings=3, decisions=None, adjudicate=(), queued=None):
    policy = Policy(raters=3, adjudicate=adjudicate, abilities=ABILITIES)
    return unit_outcome(
        votes=votes, ratings=ratings, decisions=decisions, policy=policy, queued=queued
    )


def test_three_ratings_and_no_chosen_split_give_the_majority_with_its_provenance():
    assert outcome() == Settled(gold={1: Gold(True, "2/1"), 2: Gold(False, "3/3")})


def test_fewer_ratings_than_raters_wait():
    assert outcome(votes={1: [True]}, ratings=1) == Waiting(ratings=1)


def test_a_split_on_a_chosen_ability_needs_a_senior_on_those_criteria_only():
    assert outcome(adjudicate=["warmth"]) == NeedsSenior(items=(1,))
    assert outcome(adjudicate=["*"]) == NeedsSenior(items=(1,))
    assert isinstance(outcome(adjudicate=["curiosity"]), Settled)


def test_a_unit_in_the_senior_queue_waits_for_the_senior():
    assert outcome(votes={}, ratings=1, queued=[]) == NeedsSenior(items=())


def test_a_senior_decides_the_criteria_sent_and_the_majority_keeps_the_others():
    settled = outcome(decisions={1: False}, adjudicate=["warmth"], queued=[1])
    assert settled == Settled(
        gold={1: Gold(False, "adjudicated"), 2: Gold(False, "3/3")}, adjudicated=True
    )
    assert settled.decided == 1


def test_a_senior_decides_a_short_unit_whole():
    settled = outcome(votes={1: [True]}, ratings=1, decisions={1: True, 2: False}, queued=[])
    assert settled.gold == {1: Gold(True, "adjudicated"), 2: Gold(False, "adjudicated")}
