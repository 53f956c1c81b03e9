"""Reads of the annotation app, always scoped to the asking user where ids come from outside.

What an expert sees of a unit is assembled here and only here (``unit_get_for_expert``), so
the blindness rules have one place to live: the dialogue, the response text, and the criteria
under opaque per-assignment ids in a per-assignment order. Never the model, the judge, the
points, other raters, or anything about the study's progress.
"""

import uuid
from dataclasses import dataclass
from datetime import datetime
from functools import partial
from typing import NamedTuple

from django.conf import settings
from django.core.paginator import Page, Paginator
from django.db.models import Count, OuterRef, Q, QuerySet, Subquery
from django.db.models.functions import Coalesce
from django.http import Http404
from django.utils import timezone
from django.utils.translation import gettext

from annotation.blinding import criterion_token, shuffled
from annotation.models import Assignment, Expert, Label, PairwiseChoice, Pool, Submission, Unit
from annotation.pairwise import first_shown
from annotation.selectors.pay import pay_rate_annotations
from benchmark.models import RubricItem
from benchmark.selectors.rubric import case_criteria
from config import compiled

SPEAKERS = {"A": "user", "B": "counsellor"}


class NotAnExpert(Exception):
    """The user has no active expert profile."""


def expert_for_user(*, user) -> Expert:
    expert = getattr(user, "expert", None) if user.is_authenticated else None
    if expert is None or not expert.is_active:
        raise NotAnExpert(f"{user} is not an active expert")
    return expert


def pools_for_expert(*, user) -> QuerySet[Pool]:
    """The studies an expert takes part in and may work on now (not drafts)."""
    expert = expert_for_user(user=user)
    return expert.pools.exclude(status=Pool.Status.DRAFT).order_by("name")


def pool_submissions_count(*, pool: Pool) -> int:
    """Submitted expert work on the pool's units (ratings and adjudications); staff side."""
    return Submission.objects.filter(unit__pool=pool).count()


def rating_submissions() -> QuerySet[Submission]:
    """Every rating submission: what gold, agreement and the dashboards count (never a
    senior's decision or a calibration sitting)."""
    return Submission.objects.filter(kind=Assignment.Kind.RATING)


RatingRow = tuple[int, int, int | None, bool | None]
"""(submission id, expert id, criterion id, hit) of a rating label; criterion and hit None for
a rating submission without labels."""


def unit_rating_rows(*, unit_id: int) -> list[RatingRow]:
    """The unit's rating submissions and their labels, one row per label (``RatingRow``), in
    one statement compiled once: read at every unit's last rating, where its peer agreement
    and its settling share the rows (``annotation.events.unit_rated``)."""
    return compiled.rows(("rating rows of a unit",), _rating_rows_of, unit_id=unit_id)


def _rating_rows_of(*, unit_id: int) -> QuerySet:
    return (
        rating_submissions()
        .filter(unit_id=unit_id)
        .order_by("pk", "labels__pk")
        .values_list("pk", "expert_id", "labels__rubric_item_id", "labels__hit")
    )


def rating_labels() -> QuerySet[Label]:
    """The labels of every rating submission (see ``rating_submissions``)."""
    return Label.objects.filter(submission__kind=Assignment.Kind.RATING)


class PairAnswer(NamedTuple):
    """A choice made on a pair, a rater's or a senior's; ``winner`` in the pair's stored order."""

    submission_id: int
    unit_id: int
    pair_id: int
    kind: str  # rating or adjudication
    slot: int | None  # the rater slot (None for a senior)
    expert_id: int
    pseudonym: str
    winner: str
    first_shown: str
    reason: str

    @property
    def is_rating(self) -> bool:
        return self.kind == Assignment.Kind.RATING


def pair_answers(*, pool: Pool | None = None, unit_id: int | None = None) -> list[PairAnswer]:
    """Every choice made on a pairwise pool's pairs (or on one unit's), oldest first."""
    rows = PairwiseChoice.objects.all()
    if pool is not None:
        rows = rows.filter(submission__unit__pool=pool)
    if unit_id is not None:
        rows = rows.filter(submission__unit_id=unit_id)
    fields = ("submission_id", "submission__unit_id", "submission__unit__pair_id",
              "submission__kind", "submission__slot", "submission__expert_id",
              "submission__expert__pseudonym", "winner", "first_shown", "reason")  # fmt: skip
    return [PairAnswer(*row) for row in rows.order_by("submission_id").values_list(*fields)]


def decision_submissions() -> QuerySet[Submission]:
    """Every senior's decision (an adjudication submission; its labels are the decisions)."""
    return Submission.objects.filter(kind=Assignment.Kind.ADJUDICATION)


def decision_labels() -> QuerySet[Label]:
    """A senior's decisions: the labels of every adjudication (the note holds the reason)."""
    return Label.objects.filter(submission__kind=Assignment.Kind.ADJUDICATION)


def rating_count(*, unit: OuterRef) -> Coalesce:
    """An expression for the number of rating submissions of ``unit`` (a reference to a unit
    id in the outer query), so a caller counts them per row in its own query."""
    counts = (
        rating_submissions().filter(unit_id=unit).values("unit_id").annotate(n=Count("id"))
    ).values("n")
    return Coalesce(Subquery(counts), 0)


def labels_of_units(*, unit_ids: list[int] | QuerySet) -> QuerySet[Label]:
    """Every label given on the units (ids, or a ``values("unit_id")`` subquery): ratings and
    a senior's decisions."""
    return Label.objects.filter(submission__unit_id__in=unit_ids)


def rating_assignments() -> QuerySet[Assignment]:
    """Every rating assignment (never a senior's decision or a calibration unit)."""
    return Assignment.objects.filter(kind=Assignment.Kind.RATING)


def rating_assignments_leased() -> QuerySet[Assignment]:
    """Rating assignments out on a lease (whether or not it has run out yet)."""
    return rating_assignments().filter(status=Assignment.Status.LEASED)


def rating_assignments_lapsed(*, now: datetime) -> QuerySet[Assignment]:
    """Rating assignments whose lease ran out: marked expired, or past their expiry."""
    return rating_assignments().filter(
        Q(status=Assignment.Status.EXPIRED)
        | Q(status=Assignment.Status.LEASED, lease_expires_at__lte=now)
    )


def assignments_live(*, now: datetime) -> QuerySet[Assignment]:
    """Assignments of any kind whose lease still runs at ``now``."""
    return Assignment.objects.filter(status=Assignment.Status.LEASED, lease_expires_at__gt=now)


def pool_units(*, pool: Pool) -> QuerySet[Unit]:
    """The pool's units, oldest first."""
    return pool.units.order_by("pk")


def pools_of(*, ids) -> QuerySet[Pool]:
    """The pools of these ids (ids, or a subquery of ids)."""
    return Pool.objects.filter(pk__in=ids)


def pool_experts(*, pool: Pool) -> QuerySet[Expert]:
    """The experts enrolled in the pool (active or not), by username."""
    return pool.experts.select_related("user").order_by("user__username")


def experts_active() -> QuerySet[Expert]:
    """Every expert who may work now."""
    return Expert.objects.filter(is_active=True).select_related("user")


def experts_by_id(*, ids: list[int]) -> dict[int, Expert]:
    return Expert.objects.select_related("user").in_bulk(ids)


def experts_by_username(*, usernames: list[str]) -> dict[str, Expert]:
    """Username → expert, for those of the names that are experts."""
    return {
        e.user.username: e
        for e in Expert.objects.filter(user__username__in=usernames).select_related("user")
    }


def _pool_of_expert(*, expert_id: int, name: str) -> QuerySet[Pool]:
    # ``pools_for_expert``'s rows of one name; names are unique, so no ORDER BY.
    return Pool.objects.filter(experts=expert_id, name=name).exclude(status=Pool.Status.DRAFT)[:1]


def pool_get_for_expert(*, user, name: str) -> Pool:
    """One of ``pools_for_expert`` by name (every progress read: compiled once)."""
    pool = compiled.first(
        ("pool of an expert",),
        _pool_of_expert,
        expert_id=expert_for_user(user=user).pk,
        name=name,
    )
    if pool is None:
        raise Http404(gettext("no such study for you"))
    return pool


def _assignment_of_expert(*, public_id, expert_id, pay_rate: bool) -> QuerySet[Assignment]:
    assignments = Assignment.objects.select_related("pool", "unit", "unit__response__case")
    if pay_rate:
        assignments = assignments.annotate(**pay_rate_annotations())
    # public_id is unique: one row at most, no ORDER BY to compile.
    return assignments.filter(public_id=public_id, expert_id=expert_id)[:1]


def assignment_get_for_expert(
    *, user, public_id: str | uuid.UUID, pay_rate: bool = False
) -> Assignment:
    """The user's own assignment; anyone else's (or a malformed id) is simply not found.

    ``pay_rate``: with the rate its submission would earn read alongside (the submit's).
    """
    try:
        key = uuid.UUID(str(public_id))
    except ValueError as exc:
        raise Http404(gettext("no such assignment")) from exc
    expert = expert_for_user(user=user)
    assignment = compiled.first(
        ("assignment of an expert", pay_rate),
        partial(_assignment_of_expert, pay_rate=pay_rate),
        public_id=key,
        expert_id=expert.pk,
    )
    if assignment is None:
        raise Http404(gettext("no such assignment"))
    assignment.expert = expert  # the one the user's login carries, with that user
    return assignment


def assignments_completed_for_expert(*, user) -> QuerySet[Assignment]:
    expert = expert_for_user(user=user)
    return (
        Assignment.objects.filter(expert=expert, status=Assignment.Status.SUBMITTED)
        .select_related("pool", "unit")
        .order_by("-submitted_at", "-id")
    )


# An expert of many studies has thousands of submissions; the page shows them in pages.
COMPLETED_PAGE_SIZE = 100


def assignments_completed_page(*, user, number: str | int | None) -> Page:
    """One page of the expert's submitted work, newest first. ``number`` is taken as the URL
    gives it: a missing or bad one is the first page, one past the end the last."""
    return Paginator(assignments_completed_for_expert(user=user), COMPLETED_PAGE_SIZE).get_page(
        number
    )


def day_start(*, now: datetime | None = None) -> datetime:
    """Local midnight of ``now``'s day: where the daily capacity's count starts."""
    return timezone.localtime(now or timezone.now()).replace(
        hour=0, minute=0, second=0, microsecond=0
    )


def submissions_since(*, expert: Expert | int, start: datetime) -> QuerySet[Submission]:
    """The expert's (or expert id's) submissions from ``start`` on, over all studies."""
    return Submission.objects.filter(expert=expert, submitted_at__gte=start)


def submissions_of_today(*, expert: Expert, now: datetime | None = None) -> QuerySet[Submission]:
    """The expert's submissions since local midnight, over all studies (the daily capacity)."""
    return submissions_since(expert=expert, start=day_start(now=now))


def submissions_today(*, expert: Expert, now: datetime | None = None) -> int:
    return submissions_of_today(expert=expert, now=now).count()


def _criteria_of(*, case_id: int) -> QuerySet[RubricItem]:
    return case_criteria(case_id=case_id)


def _criteria(assignment: Assignment) -> list[RubricItem]:
    """The unit's criteria, read once per assignment instance (a request's tokens, versions
    and page share the read)."""
    if "_criteria" not in assignment.__dict__:
        assignment.__dict__["_criteria"] = compiled.objects(
            ("criteria of a case",), _criteria_of, case_id=assignment.unit.response.case_id
        )
    return assignment.__dict__["_criteria"]


def _criterion_keys(assignment: Assignment) -> list[tuple[int, int]]:
    """(pk, version) of the unit's criteria, in ``_criteria``'s order: from the criteria when
    this request read them, else only these two columns (autosave and submit need no more)."""
    if "_criteria" in assignment.__dict__:
        return [(item.pk, item.version) for item in assignment.__dict__["_criteria"]]
    if "_criterion_keys" not in assignment.__dict__:
        assignment.__dict__["_criterion_keys"] = compiled.rows(
            ("criterion keys of a case",),
            lambda case_id: _criteria_of(case_id=case_id).values_list("pk", "version"),
            case_id=assignment.unit.response.case_id,
        )
    return assignment.__dict__["_criterion_keys"]


def criterion_versions(*, assignment: Assignment) -> dict[int, int]:
    """RubricItem pk → its current version, for the unit of this assignment."""
    return dict(_criterion_keys(assignment))


def criterion_tokens(*, assignment: Assignment) -> dict[str, int]:
    """Opaque criterion id → RubricItem pk, for this assignment only."""
    key = f"{assignment.public_id}:{assignment.shuffle_seed}"
    return {
        criterion_token(secret=settings.SECRET_KEY, assignment_key=key, criterion_pk=pk): pk
        for pk, _ in _criterion_keys(assignment)
    }


@dataclass(frozen=True)
class BlindCriterion:
    id: str
    text: str
    ability: str | None
    # Sent back with the label, so it records the text the expert actually read.
    version: int = 1


@dataclass(frozen=True)
class BlindUnit:
    token: str
    dialogue: list[dict[str, str]]
    response: str
    criteria: list[BlindCriterion]
    # A pairwise unit: its two responses in the order this assignment shows them (A first);
    # then ``response`` is empty and there are no criteria. None for a rubric unit.
    responses: tuple[str, str] | None = None

    @property
    def question_type(self) -> str:
        return "rubric" if self.responses is None else "pairwise"


def unit_get_for_expert(*, user, assignment: Assignment) -> BlindUnit:
    """The unit of the user's own assignment, as the expert may see it."""
    if assignment.expert.user_id != user.pk:
        raise Http404(gettext("no such assignment"))
    response = assignment.unit.response
    if assignment.unit.pair_id is not None:
        return _blind_pair(assignment)
    key = f"{assignment.public_id}:{assignment.shuffle_seed}"
    show_ability = _shows_ability(assignment)
    criteria = [
        BlindCriterion(
            id=criterion_token(secret=settings.SECRET_KEY, assignment_key=key, criterion_pk=i.pk),
            text=i.text,
            ability=i.ability if show_ability else None,
            version=i.version,
        )
        for i in _criteria(assignment)
    ]
    return BlindUnit(
        token=assignment.unit.token,
        dialogue=blind_dialogue(case=response.case),
        response=response.text,
        criteria=shuffled(criteria, seed=assignment.shuffle_seed),
    )


def _blind_pair(assignment: Assignment) -> BlindUnit:
    """A pairwise unit as the expert sees it: the case's dialogue and the two responses in
    the assignment's order (``annotation.pairwise.first_shown``), neither model named."""
    text_a, text_b = (
        Unit.objects.filter(pk=assignment.unit_id)
        .values_list("pair__response_a__text", "pair__response_b__text")
        .get()
    )
    shown = (text_a, text_b) if first_shown(assignment.shuffle_seed) == "a" else (text_b, text_a)
    return BlindUnit(
        token=assignment.unit.token,
        dialogue=blind_dialogue(case=assignment.unit.response.case),
        response="",
        criteria=[],
        responses=shown,
    )


def blind_dialogue(*, case) -> list[dict[str, str]]:
    """A case's turns as experts see them: "user" or "counsellor", and the text."""
    return [
        {"role": SPEAKERS.get(turn.get("role"), "user"), "content": str(turn.get("content", ""))}
        for turn in case.dialogue
    ]


def _shows_ability(assignment: Assignment) -> bool:
    """Whether the criteria carry their ability. A calibration unit shows it when a study
    that sends this expert to the set does, so it looks exactly like that study's units."""
    pool = assignment.pool
    if pool.show_ability or assignment.kind != Assignment.Kind.CALIBRATION:
        return pool.show_ability
    return Pool.objects.filter(
        calibration__pool_id=pool.pk,
        experts=assignment.expert_id,
        status=Pool.Status.OPEN,
        show_ability=True,
    ).exists()


def draft_for_assignment(*, assignment: Assignment) -> dict:
    return assignment.draft_labels


def submitted_for_assignment(*, assignment: Assignment) -> dict[str, dict] | None:
    """The expert's own submitted labels by criterion id (None before the submit): a second
    tab on the unit shows its marks beside these."""
    if assignment.status != Assignment.Status.SUBMITTED:
        return None
    token_of = {pk: token for token, pk in criterion_tokens(assignment=assignment).items()}
    labels = assignment.submission.labels.values_list("rubric_item_id", "hit", "note")
    return {token_of[pk]: {"hit": hit, "note": note} for pk, hit, note in labels if pk in token_of}


def draft_active_seconds(*, assignment: Assignment) -> int:
    """Active time the assignment's draft carries (0 without one), so a reload counts on."""
    return assignment.draft_active_seconds
