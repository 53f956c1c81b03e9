"""Reads of the construction tiers: which drafts an expert may still be handed, a task as its
expert sees it, an author's drafts with their reviews, and the reviewers' agreement."""

from collections import Counter, defaultdict
from dataclasses import dataclass
from datetime import datetime

from django.db.models import Count, Exists, OuterRef, Q, QuerySet, Subquery

from annotation import selectors
from annotation.models import (
    ConstructionTask,
    ConstructionWork,
    CriterionReview,
    Expert,
    PanelRound,
    TaskKind,
)
from annotation.work import kind_permitted
from benchmark.models import ConstructionProject, DraftCase, DraftCriterion, DraftStatus
from benchmark.selectors.construction import active_draft_criteria, author_drafts, project_drafts


class TaskNotFound(LookupError):
    """No such task, or not the user's."""


def tasks_holding(now: datetime) -> Q:
    """A task holding its slot: submitted, or out on a lease that has not run out (a lapsed
    lease counts as free before the sweep marks it expired)."""
    return Q(status=ConstructionTask.Status.SUBMITTED) | Q(
        status=ConstructionTask.Status.LEASED, lease_expires_at__gt=now
    )


def work_open(*, project: ConstructionProject, kind: str) -> ConstructionWork | None:
    return ConstructionWork.objects.filter(project=project, kind=kind, is_open=True).first()


def review_complete(*, project: ConstructionProject) -> QuerySet[DraftCase]:
    """Drafts whose criteria have every review they were opened for."""
    work = ConstructionWork.objects.filter(project=project, kind=TaskKind.REVIEW).first()
    if work is None:
        return project_drafts(project=project).none()
    return (
        project_drafts(project=project)
        .annotate(
            reviews=Count(
                "expert_tasks",
                filter=Q(
                    expert_tasks__kind=TaskKind.REVIEW,
                    expert_tasks__status=ConstructionTask.Status.SUBMITTED,
                ),
            )
        )
        .filter(reviews__gte=work.raters)
    )


def drafts_to_hand_out(
    *, work: ConstructionWork, expert: Expert, now: datetime
) -> QuerySet[DraftCase]:
    """The drafts this expert may still be handed for this work, in the order they are
    handed out: active, not full, not done by the expert already, and for review and the
    panel never the expert's own (independence)."""
    drafts = project_drafts(project=work.project).filter(status=DraftStatus.ACTIVE)
    mine = ConstructionTask.objects.filter(draft=OuterRef("pk"), kind=work.kind, expert=expert)
    if work.kind == TaskKind.DIFFICULTY:
        drafts = drafts.filter(difficulty="")
    else:
        drafts = drafts.filter(author__isnull=False).exclude(author=expert.user)
    if work.kind == TaskKind.REVIEW:
        active = active_draft_criteria().filter(draft=OuterRef("pk"))
        drafts = drafts.filter(Exists(active))
    if work.kind == TaskKind.PANEL:
        pending = PanelRound.objects.filter(draft=OuterRef("pk"), outcome="pending")
        drafts = drafts.filter(Exists(pending))
        mine = mine.filter(panel_round__outcome="pending")
    held = ConstructionTask.objects.filter(tasks_holding(now), draft=OuterRef("pk"), kind=work.kind)
    if work.kind == TaskKind.PANEL:
        held = held.filter(panel_round__outcome="pending")
    held_count = held.order_by().values("draft").annotate(n=Count("pk")).values("n")
    return (
        drafts.exclude(Exists(mine.exclude(status=ConstructionTask.Status.EXPIRED)))
        .alias(held=Subquery(held_count))
        .filter(Q(held__isnull=True) | Q(held__lt=work.raters))
        .order_by("position")
    )


@dataclass(frozen=True)
class WorkRow:
    """One kind of open work on a project as an expert's /construct/ page lists it."""

    work: ConstructionWork
    waiting: int
    held: ConstructionTask | None


def construction_work_for_expert(*, user, now: datetime) -> list[WorkRow]:
    """The open construction work this expert may take (the panel only for seniors), with
    how many drafts wait for them and the task they hold."""
    expert = selectors.expert_for_user(user=user)
    works = ConstructionWork.objects.filter(is_open=True).select_related("project")
    works = works.exclude(
        kind__in=[kind for kind in TaskKind.values if not kind_permitted(kind=kind, expert=expert)]
    )
    held = {
        task.work_id: task
        for task in ConstructionTask.objects.filter(
            expert=expert, status=ConstructionTask.Status.LEASED, lease_expires_at__gt=now
        )
    }
    return [
        WorkRow(
            work=work,
            waiting=drafts_to_hand_out(work=work, expert=expert, now=now).count(),
            held=held.get(work.pk),
        )
        for work in works.order_by("project__name", "kind")
    ]


def task_get_for_expert(
    *, user, task_id: int | None = None, public_id=None, kind: str | None = None
) -> ConstructionTask:
    """The user's own task, still to answer (leased or lapsed, not submitted), by its key
    (the pages) or its public id (the API, which names the kind too)."""
    expert = selectors.expert_for_user(user=user)
    mine = ConstructionTask.objects.filter(expert=expert)
    if task_id is not None:
        mine = mine.filter(pk=task_id)
    else:
        mine = mine.filter(public_id=public_id, kind=kind)
    task = (
        mine.select_related("draft", "work__project", "panel_round")
        .exclude(status=ConstructionTask.Status.SUBMITTED)
        .first()
    )
    if task is None:
        raise TaskNotFound(task_id or public_id)
    return task


@dataclass(frozen=True)
class _Dialogue:
    dialogue: list


def draft_dialogue(*, draft: DraftCase) -> list[dict[str, str]]:
    """The dialogue the case ships with (the rewrite when there is one), as experts see it."""
    return selectors.blind_dialogue(case=_Dialogue(draft.rewrite or draft.dialogue))


def criteria_active(*, draft: DraftCase) -> QuerySet[DraftCriterion]:
    return draft.criteria.filter(status=DraftCriterion.Status.ACTIVE).order_by("position")


def criteria_with_reviews(*, draft: DraftCase) -> list[dict]:
    """The draft's active criteria, each with its reviews (verdict, comment, the version
    read), reviewers unnamed."""
    reviews = defaultdict(list)
    for review in CriterionReview.objects.filter(criterion__draft=draft).order_by("pk"):
        reviews[review.criterion_id].append(review)
    return [
        {"criterion": criterion, "reviews": reviews[criterion.pk]}
        for criterion in criteria_active(draft=draft)
    ]


def panel_returns(*, draft: DraftCase) -> list[dict]:
    """The panel's earlier rounds that returned the draft, with the reasons given."""
    rounds = draft.panel_rounds.filter(outcome=PanelRound.Outcome.RETURNED).prefetch_related(
        "tasks__panel_vote"
    )
    return [
        {
            "round": panel_round,
            "reasons": [
                task.panel_vote.reason
                for task in panel_round.tasks.all()
                if hasattr(task, "panel_vote") and task.panel_vote.vote == "return"
            ],
        }
        for panel_round in rounds
    ]


def drafts_for_author(*, user) -> list[dict]:
    """The author's drafts still in the funnel whose reviews are complete: criteria with
    their reviews, the panel's returns, and whether the draft is with the panel now."""
    selectors.expert_for_user(user=user)
    rows = []
    for draft in (
        author_drafts(user=user)
        .filter(status=DraftStatus.ACTIVE)
        .order_by("project__name", "position")
    ):
        if not review_complete(project=draft.project).filter(pk=draft.pk).exists():
            continue
        criteria = criteria_with_reviews(draft=draft)
        rows.append(
            {
                "draft": draft,
                "criteria": criteria,
                "problems": sum(
                    any(r.verdict != "clear" for r in row["reviews"]) for row in criteria
                ),
                "returns": panel_returns(draft=draft),
                "with_panel": draft.panel_rounds.filter(outcome="pending").exists(),
            }
        )
    return rows


def criterion_for_author(*, user, criterion_id: int) -> DraftCriterion:
    """An active criterion of one of the user's active drafts that is not with the panel."""
    criterion = (
        active_draft_criteria()
        .select_related("draft")
        .filter(
            pk=criterion_id,
            draft__author=user,
            draft__status=DraftStatus.ACTIVE,
        )
        .exclude(draft__panel_rounds__outcome="pending")
        .first()
    )
    if criterion is None:
        raise TaskNotFound(criterion_id)
    return criterion


def construction_review_summary(*, project: ConstructionProject) -> dict:
    """Rubric agreement among the reviewers: per criterion the count of each verdict; the
    share of reviewed criteria every reviewer called clear; and Krippendorff's α (nominal,
    the ``krippendorff`` package) over the five verdict categories, criteria as units and
    reviewers as coders (a reviewer who did not read a criterion is missing). α is None when
    it is undefined: fewer than two reviews on every criterion, or one category only."""
    reviews = list(
        CriterionReview.objects.filter(criterion__draft__project=project)
        .select_related("criterion__draft", "task")
        .order_by("criterion__draft__position", "criterion__position", "pk")
    )
    by_criterion: dict[int, list[CriterionReview]] = defaultdict(list)
    for review in reviews:
        by_criterion[review.criterion_id].append(review)
    rows = [
        {
            "question_id": items[0].criterion.draft.question_id,
            "position": items[0].criterion.position,
            "verdicts": dict(Counter(r.verdict for r in items)),
            "all_clear": all(r.verdict == CriterionReview.Verdict.CLEAR for r in items),
        }
        for items in by_criterion.values()
    ]
    return {
        "criteria": rows,
        "reviewed": len(rows),
        "all_clear_share": (sum(r["all_clear"] for r in rows) / len(rows)) if rows else None,
        "krippendorff_alpha": _alpha(by_criterion),
    }


def _alpha(by_criterion: dict[int, list[CriterionReview]]) -> float | None:
    # numpy and krippendorff load with the report, not with the pages (tests/test_startup.py).
    import krippendorff
    import numpy as np

    codes = {value: index for index, value in enumerate(CriterionReview.Verdict.values)}
    experts = sorted({r.task.expert_id for items in by_criterion.values() for r in items})
    if not experts or max(len(items) for items in by_criterion.values()) < 2:
        return None
    row = {expert: index for index, expert in enumerate(experts)}
    data = np.full((len(experts), len(by_criterion)), np.nan)
    for column, items in enumerate(by_criterion.values()):
        for review in items:
            data[row[review.task.expert_id], column] = codes[review.verdict]
    if len(np.unique(data[~np.isnan(data)])) < 2:
        return None
    return float(krippendorff.alpha(reliability_data=data, level_of_measurement="nominal"))


def work_get_open(*, work_id: int) -> ConstructionWork:
    work = ConstructionWork.objects.select_related("project").filter(pk=work_id, is_open=True)
    if not work.exists():
        raise TaskNotFound(work_id)
    return work.get()


def draft_for_author(*, user, draft_id: int) -> DraftCase:
    draft = author_drafts(user=user).filter(pk=draft_id).first()
    if draft is None:
        raise TaskNotFound(draft_id)
    return draft
