"""Reads of an expert's look back at submitted work, and of the flags seniors answer.

A rater sees only their own labels and notes here: never another rater's, never the gold or a
judge verdict. While the unit still waits for ratings the rater may revise; once it has all
of them the labels are settled and the rater may flag the unit for a senior's review instead.
A senior answering a flag sees the flagging rater's labels and reason under no name.
"""

import uuid
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

from django.core.paginator import Page, Paginator
from django.db.models import (
    BooleanField,
    Count,
    Exists,
    ExpressionWrapper,
    OuterRef,
    Q,
    QuerySet,
    Subquery,
)
from django.http import Http404
from django.utils.translation import gettext

from annotation import selectors
from annotation.models import (
    Assignment,
    Expert,
    Pool,
    ReviewFlag,
    Submission,
    SubmissionVersion,
)
from annotation.selectors import adjudication as queue
from benchmark.selectors.rubric import criteria_by_id


class Standing(StrEnum):
    """What the rater may still do with a submitted unit."""

    REVISABLE = "revisable"  # the unit still waits for ratings: the rater may revise
    SETTLED = "settled"  # every rating is in: the rater may flag it for review
    FLAGGED = "flagged"  # a flag of the rater waits for a senior
    FIXED = "fixed"  # calibration or a senior's decision: read only


def submission_standing(
    *, kind: str, pool_open: bool, queued: bool, ratings: int, raters: int, flag_open: bool
) -> Standing:
    """The one rule of what a rater may do with a submitted unit (pure).

    A rating may be revised while the study is open, the unit waits for more ratings and no
    senior was asked to decide it; after that its votes are the ones gold is made of, so the
    rater can only ask a senior to look again.
    """
    if kind != Assignment.Kind.RATING:
        return Standing.FIXED
    if flag_open:
        return Standing.FLAGGED
    if pool_open and not queued and ratings < raters:
        return Standing.REVISABLE
    return Standing.SETTLED


def _ratings_on_unit() -> Subquery:
    return Subquery(
        Submission.objects.filter(unit=OuterRef("unit"), kind=Assignment.Kind.RATING)
        .order_by()
        .values("unit")
        .annotate(n=Count("pk"))
        .values("n")
    )


@dataclass(frozen=True)
class DoneRow:
    assignment: Assignment
    standing: Standing
    hits: int
    misses: int


def _standing(a: Assignment) -> Standing:
    return submission_standing(
        kind=a.kind,
        pool_open=a.pool.status == Pool.Status.OPEN,
        queued=a.unit.needs_adjudication,
        ratings=a.ratings or 0,
        raters=a.pool.raters_per_unit,
        flag_open=a.flag_open,
    )


def _done_rows(user) -> QuerySet[Assignment]:
    return (
        selectors.assignments_completed_for_expert(user=user)
        .select_related("submission")
        .annotate(
            ratings=_ratings_on_unit(),
            flag_open=Exists(
                ReviewFlag.objects.filter(
                    submission__assignment=OuterRef("pk"), status=ReviewFlag.Status.OPEN
                )
            ),
            hits=Count("submission__labels", filter=Q(submission__labels__hit=True)),
            labelled=Count("submission__labels"),
        )
    )


def completed_page(*, user, number: str | int | None, query: str = "") -> Page:
    """One page of the expert's submitted units, newest first, with what each still allows.

    ``query`` finds units by token, study name, or a word of one of the expert's own notes or
    of a criterion's text.
    """
    rows = _done_rows(user)
    query = query.strip()
    if query:
        # The expert's own submissions only: another rater's note never finds a unit.
        matching = Submission.objects.filter(
            Q(labels__note__icontains=query) | Q(labels__rubric_item__text__icontains=query),
            expert=selectors.expert_for_user(user=user),
        ).values("assignment_id")
        rows = rows.filter(
            Q(unit__token__icontains=query) | Q(pool__name__icontains=query) | Q(pk__in=matching)
        )
    page = Paginator(rows, selectors.COMPLETED_PAGE_SIZE).get_page(number)
    page.object_list = [
        DoneRow(assignment=a, standing=_standing(a), hits=a.hits, misses=a.labelled - a.hits)
        for a in page.object_list
    ]
    return page


@dataclass(frozen=True)
class LabelShown:
    id: str  # the assignment's opaque criterion id
    text: str
    hit: bool | None
    note: str


@dataclass(frozen=True)
class VersionShown:
    version: int
    submitted_at: datetime
    hits: int
    misses: int


@dataclass(frozen=True)
class FlagShown:
    reason: str
    status: str
    status_label: str
    created_at: datetime
    answer: str


@dataclass(frozen=True)
class SubmissionReview:
    assignment: Assignment
    unit: selectors.BlindUnit
    labels: list[LabelShown]
    standing: Standing
    version: int
    versions: list[VersionShown]
    flags: list[FlagShown]


def _flag_shown(flag: ReviewFlag) -> FlagShown:
    return FlagShown(
        reason=flag.reason,
        status=flag.status,
        status_label=flag.get_status_display(),
        created_at=flag.created_at,
        answer=flag.answer,
    )


def submission_review_for_expert(*, user, public_id: str | uuid.UUID) -> SubmissionReview:
    """The user's own submitted unit as they rated it, with its earlier versions and flags."""
    assignment = selectors.assignment_get_for_expert(user=user, public_id=public_id)
    if assignment.status != Assignment.Status.SUBMITTED:
        raise Http404(gettext("no such assignment"))
    row = _done_rows(user).get(pk=assignment.pk)
    unit = selectors.unit_get_for_expert(user=user, assignment=assignment)
    pks = selectors.criterion_tokens(assignment=assignment)
    stored = {label.rubric_item_id: label for label in row.submission.labels.all()}
    labels = []
    for c in unit.criteria:
        label = stored.get(pks[c.id])
        labels.append(
            LabelShown(
                id=c.id,
                text=c.text,
                hit=None if label is None else label.hit,
                note="" if label is None else label.note,
            )
        )
    versions = [
        VersionShown(
            version=v.version,
            submitted_at=v.submitted_at,
            hits=sum(1 for x in v.labels if x["hit"]),
            misses=sum(1 for x in v.labels if not x["hit"]),
        )
        for v in SubmissionVersion.objects.filter(submission=row.submission).order_by("-version")
    ]
    flags = [
        _flag_shown(f)
        for f in ReviewFlag.objects.filter(submission=row.submission).order_by("-created_at")
    ]
    return SubmissionReview(
        assignment=row,
        unit=unit,
        labels=labels,
        standing=_standing(row),
        version=row.submission.version,
        versions=versions,
        flags=flags,
    )


# --- the senior's side ------------------------------------------------------------------


def flag_gold_settled() -> Q:
    """The flags whose unit no senior is still to decide: never sent to a senior, or decided.

    The rule of who reads a flag (docs/architecture.md, "Flags"): only once the unit's gold is
    settled, and never by a senior who rated or decided the unit. So a rater cannot lobby the
    adjudicator: before the decision no senior reads the flag, after it the one who decided
    never does (and a senior who answered a flag never claims the unit, ``adjudication_queue``).
    """
    decided = Submission.objects.filter(
        unit=OuterRef("submission__unit"), kind=Assignment.Kind.ADJUDICATION
    )
    return Q(submission__unit__needs_adjudication=False) | Exists(decided)


def flags_open_for_senior(*, user) -> QuerySet[ReviewFlag]:
    """Open flags in the senior's studies the senior may read (``flag_gold_settled``)."""
    senior = queue.senior_for_user(user=user)
    own = Submission.objects.filter(expert=senior).values("unit_id")
    return (
        ReviewFlag.objects.filter(
            flag_gold_settled(),
            status=ReviewFlag.Status.OPEN,
            submission__unit__pool__in=queue.pools_for_senior(user=user),
        )
        .exclude(submission__unit_id__in=own)
        .select_related("submission__unit__pool", "submission__unit__response__case")
        .order_by("created_at", "pk")
    )


@dataclass(frozen=True)
class FlagForSenior:
    flag: ReviewFlag
    study: str
    unit_token: str
    dialogue: list[dict[str, str]]
    response: str
    labels: list[LabelShown]  # the flagging rater's, in the rubric's order, under no name
    items: list[int]  # the rubric item of each label, for the page to add the gold


def flag_get_for_senior(*, user, flag_id: int) -> FlagForSenior:
    """An open flag the senior may answer (anything else is simply not found)."""
    flag = flags_open_for_senior(user=user).filter(pk=flag_id).first()
    if flag is None:
        raise Http404(gettext("no such flag"))
    submission = flag.submission
    stored = {label.rubric_item_id: label for label in submission.labels.all()}
    items = criteria_by_id(ids=stored).order_by("case_id", "position")
    labels = [
        LabelShown(id=str(i), text=item.text, hit=stored[item.pk].hit, note=stored[item.pk].note)
        for i, item in enumerate(items, start=1)
    ]
    return FlagForSenior(
        flag=flag,
        study=submission.unit.pool.name,
        unit_token=submission.unit.token,
        dialogue=selectors.blind_dialogue(case=submission.unit.response.case),
        response=submission.unit.response.text,
        labels=labels,
        items=[item.pk for item in items],
    )


class FlagUnread(StrEnum):
    """Why no senior can read an open flag now (``flags_unread``)."""

    DECISION = "decision"  # the unit waits for a senior's decision; shown to another after it
    NO_SENIOR = "no_senior"  # every active senior of the study rated or decided the unit


@dataclass(frozen=True)
class UnreadFlag:
    flag: ReviewFlag
    pool_id: int
    unit_token: str
    reason: FlagUnread


def flags_unread(*, pool_ids: list[int]) -> list[UnreadFlag]:
    """Open flags in these studies that no senior may read now, with why (staff side).

    The other side of ``flags_open_for_senior``: a flag on a unit still to be decided waits
    for the decision; one on a unit that every active senior of the study rated or decided
    would never be answered unless the admin enrols another senior.
    """
    flags = list(
        ReviewFlag.objects.filter(
            status=ReviewFlag.Status.OPEN, submission__unit__pool_id__in=pool_ids
        )
        .annotate(settled=ExpressionWrapper(flag_gold_settled(), output_field=BooleanField()))
        .select_related("submission__unit")
        .order_by("created_at", "pk")
    )
    if not flags:
        return []
    seniors: dict[int, set[int]] = {}
    for pool_id, expert_id in Pool.experts.through.objects.filter(
        pool_id__in={f.submission.unit.pool_id for f in flags},
        expert__tier=Expert.Tier.SENIOR,
        expert__is_active=True,
        expert__user__is_active=True,
    ).values_list("pool_id", "expert_id"):
        seniors.setdefault(pool_id, set()).add(expert_id)
    involved: dict[int, set[int]] = {}
    for unit_id, expert_id in Submission.objects.filter(
        unit_id__in={f.submission.unit_id for f in flags}
    ).values_list("unit_id", "expert_id"):
        involved.setdefault(unit_id, set()).add(expert_id)
    found = []
    for flag in flags:
        unit = flag.submission.unit
        if not flag.settled:
            reason = FlagUnread.DECISION
        elif not seniors.get(unit.pool_id, set()) - involved.get(unit.pk, set()):
            reason = FlagUnread.NO_SENIOR
        else:
            continue
        found.append(
            UnreadFlag(flag=flag, pool_id=unit.pool_id, unit_token=unit.token, reason=reason)
        )
    return found
