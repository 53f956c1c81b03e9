"""The construction tiers' decisions as plain functions (no ORM): the difficulty majority and
the senior panel's rule, both by the project's one majority rule (``annotation.majority``)."""

from collections import Counter
from collections.abc import Sequence

from annotation.majority import majority_code

# Hard reason categories in the order that breaks a tie between them (the paper's order).
HARD_REASONS = ("misleading_cues", "mixed_emotions", "ethical_tradeoff", "other")


def difficulty_decide(marks: Sequence[tuple[str, str]]) -> tuple[str, str]:
    """The draft's difficulty from its experts' ``(difficulty, reason)`` marks: the majority;
    a tie is hard (the Hard set is for cases that divide readers, and a split among experts is
    such a sign). A hard decision takes the reason most hard marks gave, ties in
    ``HARD_REASONS`` order; a normal one has no reason."""
    if not marks:
        raise ValueError("no marks")
    hard = [reason for difficulty, reason in marks if difficulty == "hard"]
    if majority_code([len(marks) - len(hard), len(hard)]) == 0:
        return "normal", ""
    counts = Counter(hard)
    return "hard", max(HARD_REASONS, key=lambda r: (counts[r], -HARD_REASONS.index(r)))


def panel_accepts(*, votes: Sequence[str], rule: str) -> bool:
    """Whether a complete panel accepts: ``unanimous`` needs every vote ``accept``;
    ``majority`` needs more than half."""
    accepts = sum(vote == "accept" for vote in votes)
    if rule == "unanimous":
        return accepts == len(votes)
    if rule == "majority":
        return majority_code([len(votes) - accepts, accepts]) == 1
    raise ValueError(f"unknown panel rule {rule!r}")
