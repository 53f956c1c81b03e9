"""Reads of the senior queue: which units wait for a senior, and what the senior may see.

A senior sees the unit as any expert does (dialogue, response under its token, criteria under
per-assignment ids in a per-assignment order) plus, for each criterion to decide, how many of
the ratings said met and not met. Never who gave which: no rater names, pseudonyms, slots,
notes or order, and never the model or a judge verdict.
"""

from dataclasses import dataclass

from django.db.models import QuerySet
from django.http import Http404

from annotation import selectors
from annotation.models import (
    ACTIVE,
    Assignment,
    Expert,
    Pool,
    ReviewFlag,
    Submission,
    Unit,
    could_name_a_study,
)
from benchmark.selectors.rubric import case_criteria


class NotASenior(selectors.NotAnExpert):
    """The user is not an active senior expert: the senior queue is closed to them."""


def senior_for_user(*, user) -> Expert:
    expert = selectors.expert_for_user(user=user)
    if not expert.is_senior:
        raise NotASenior(f"{user} is not a senior expert")
    return expert


def pools_for_senior(*, user) -> QuerySet[Pool]:
    """The studies (open or closed) a senior takes part in."""
    senior_for_user(user=user)
    return selectors.pools_for_expert(user=user)


def pool_get_for_senior(*, user, name: str) -> Pool:
    """The senior's study of that name; 404 when there is none (or no study can have that
    name, ``could_name_a_study``)."""
    pools = pools_for_senior(user=user)
    pool = pools.filter(name=name).first() if could_name_a_study(name) else None
    if pool is None:
        raise Http404("no such study for you")
    return pool


def adjudication_queue(*, pool: Pool, expert: Expert) -> QuerySet[Unit]:
    """Units waiting for a senior that this expert may take: not already taken or decided
    by another senior, never one the expert rated (or holds for rating) themself, and never
    one on which the expert answered a rater's flag (it told them the rater's labels)."""
    taken = Assignment.objects.filter(
        pool=pool, kind=Assignment.Kind.ADJUDICATION, status__in=ACTIVE
    ).values("unit_id")
    rated = Assignment.objects.filter(
        pool=pool, expert=expert, kind=Assignment.Kind.RATING, status__in=ACTIVE
    ).values("unit_id")
    answered = ReviewFlag.objects.filter(resolved_by=expert).values("submission__unit_id")
    return (
        Unit.objects.filter(pool=pool, needs_adjudication=True)
        .exclude(pk__in=taken)
        .exclude(pk__in=rated)
        .exclude(pk__in=Submission.objects.filter(expert=expert).values("unit_id"))
        .exclude(pk__in=answered)
    )


def adjudication_items(*, unit: Unit) -> list[int]:
    """The rubric items a senior decides: the split ones, or every one (incomplete unit)."""
    if unit.adjudicate_items:
        return [int(pk) for pk in unit.adjudicate_items]
    return list(case_criteria(case_id=unit.response.case_id).values_list("pk", flat=True))


def adjudication_tokens(*, assignment: Assignment) -> dict[str, int]:
    """Opaque criterion id → RubricItem pk of the criteria this adjudication decides."""
    items = set(adjudication_items(unit=assignment.unit))
    return {
        token: pk
        for token, pk in selectors.criterion_tokens(assignment=assignment).items()
        if pk in items
    }


@dataclass(frozen=True)
class CriterionToDecide:
    id: str
    text: str
    ability: str | None


@dataclass(frozen=True)
class BlindAdjudication:
    """What a senior sees of a unit to decide: the blind unit and what is to be decided, never
    a rater's label, choice or note on it (DESIGN, "Blindness"), not even counted."""

    token: str
    dialogue: list[dict[str, str]]
    response: str
    whole_unit: bool
    criteria: list[CriterionToDecide]
    # A pair: its two responses in this assignment's order (A first); None for a rubric unit.
    responses: tuple[str, str] | None = None

    @property
    def question_type(self) -> str:
        return "rubric" if self.responses is None else "pairwise"


def adjudication_get_for_senior(*, user, assignment: Assignment) -> BlindAdjudication:
    """The senior's own adjudication as they may see it: the blind unit and the criteria to
    decide (for a pair, the pair), and whether the unit never got all its ratings."""
    senior_for_user(user=user)
    if assignment.kind != Assignment.Kind.ADJUDICATION:
        raise Http404("no such adjudication")
    unit = selectors.unit_get_for_expert(user=user, assignment=assignment)
    if unit.responses is not None:
        return BlindAdjudication(
            token=unit.token,
            dialogue=unit.dialogue,
            response="",
            whole_unit=assignment.unit.ratings < assignment.pool.raters_per_unit,
            criteria=[],
            responses=unit.responses,
        )
    tokens = adjudication_tokens(assignment=assignment)
    criteria = [
        CriterionToDecide(id=c.id, text=c.text, ability=c.ability)
        for c in unit.criteria  # already in this assignment's shuffled order
        if c.id in tokens
    ]
    return BlindAdjudication(
        token=unit.token,
        dialogue=unit.dialogue,
        response=unit.response,
        whole_unit=not assignment.unit.adjudicate_items,
        criteria=criteria,
    )
