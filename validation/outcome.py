"""What becomes of a unit: its gold, a senior's turn, or more waiting (pure).

``unit_outcome`` is the one place that decides it, from the unit's votes, a senior's
decisions and the study's policy; ``validation.services.settle`` applies the answer. A new
kind of expert work that ends a unit differently adds an outcome type here.
"""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from validation.adjudication import split_items
from validation.gold import ADJUDICATED, gold_from_choices, gold_from_votes


@dataclass(frozen=True)
class Policy:
    raters: int  # ratings a unit needs
    adjudicate: Sequence[str] = ()  # abilities whose splits a senior decides ("*": all)
    abilities: Mapping[int, str] = field(default_factory=dict)  # criterion → ability code


@dataclass(frozen=True)
class Gold:
    hit: bool
    provenance: str  # "3/3", "2/1" or "adjudicated"


@dataclass(frozen=True)
class Settled:
    gold: dict[int, Gold]  # criterion → its gold
    adjudicated: bool = False  # a senior decided (some of) the criteria

    @property
    def decided(self) -> int:
        """How many criteria a senior decided (the others are the raters' majority)."""
        return sum(1 for g in self.gold.values() if g.provenance == ADJUDICATED)


@dataclass(frozen=True)
class NeedsSenior:
    items: tuple[int, ...]  # the criteria a senior decides; empty: the whole unit


@dataclass(frozen=True)
class Waiting:
    ratings: int  # ratings in so far, fewer than the policy's raters


@dataclass(frozen=True)
class PairSettled:
    winner: str  # a, b or tie, in the pair's stored order
    provenance: str  # "3/3", "2/1" or "adjudicated"

    @property
    def adjudicated(self) -> bool:
        return self.provenance == ADJUDICATED


UnitOutcome = Settled | PairSettled | NeedsSenior | Waiting


def unit_outcome(
    *,
    votes: Mapping[int, Sequence[bool]],
    ratings: int,
    decisions: Mapping[int, bool] | None,
    policy: Policy,
    queued: Sequence[int] | None = None,
) -> UnitOutcome:
    """The unit's outcome.

    ``votes``: each criterion's rating labels; ``ratings``: how many rating submissions;
    ``decisions``: a senior's decision per criterion (None: no senior has decided);
    ``queued``: the criteria the unit already waits for a senior on (empty: the whole unit;
    None: it is in no senior's queue). A senior's decisions are the gold of the criteria
    they decided and the majority stays the gold of the others (when the unit has all its
    ratings). A unit with all its ratings and a split on a criterion the policy chose needs
    a senior; otherwise each criterion's majority is its gold.
    """
    complete = ratings >= policy.raters
    if decisions is not None:
        gold = _majorities(votes) if complete else {}
        gold.update({pk: Gold(hit, ADJUDICATED) for pk, hit in decisions.items()})
        return Settled(gold=gold, adjudicated=True)
    if queued is not None:
        return NeedsSenior(items=tuple(queued))
    if not complete:
        return Waiting(ratings=ratings)
    split = split_items(
        votes=votes, abilities=policy.abilities, chosen=policy.adjudicate, raters=policy.raters
    )
    if split:
        return NeedsSenior(items=tuple(split))
    return Settled(gold=_majorities(votes))


def _majorities(votes: Mapping[int, Sequence[bool]]) -> dict[int, Gold]:
    return {pk: Gold(*gold_from_votes(v)) for pk, v in votes.items()}


def pair_outcome(
    *, choices: Sequence[str], decision: str | None, raters: int, queued: bool
) -> PairSettled | NeedsSenior | Waiting:
    """A pair's outcome from its raters' ``choices`` (a, b, tie in the pair's order), a
    senior's ``decision`` (None: none yet) and whether it waits in the senior queue: the
    senior's choice, else the majority of all its ratings, else (three ways split) a senior."""
    if decision is not None:
        return PairSettled(winner=decision, provenance=ADJUDICATED)
    if queued:
        return NeedsSenior(items=())
    if len(choices) < raters:
        return Waiting(ratings=len(choices))
    gold = gold_from_choices(choices)
    return NeedsSenior(items=()) if gold is None else PairSettled(*gold)
