"""The construction tiers as expert work: opening a kind of work on a project, the claim,
and recording a difficulty mark, a criterion review or a panel vote.

The draft's fate is benchmark's to write (``benchmark.services.criteria``); this module
decides *when*: the difficulty majority once the last mark is in, acceptance once the panel is
complete and its rule says yes. A draft the panel returns goes back to its author, who revises
and sends it again: a new ``PanelRound``, voted on afresh (the same seniors may sit again).

Concurrency follows the unit claim: a draft is taken under ``select_for_update(skip_locked)``
and its slots are counted under that lock; on SQLite the partial unique constraints on
``ConstructionTask`` are the last word.
"""

from datetime import datetime, timedelta

from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from annotation import selectors
from annotation.audit_actions import AnnotationAction
from annotation.construction_rules import difficulty_decide, panel_accepts
from annotation.models import (
    ConstructionTask,
    ConstructionWork,
    CriterionReview,
    DifficultyMark,
    Expert,
    PanelRound,
    PanelRule,
    PanelVote,
    TaskKind,
)
from annotation.selectors.construction import (
    criteria_active,
    drafts_to_hand_out,
    review_complete,
    tasks_holding,
    work_open,
)
from annotation.services.errors import AnnotationError
from annotation.services.leases import lease_renew, lease_win_back, leases_lapse
from annotation.work import kind_permitted
from benchmark.models import ConstructionProject, DraftCase, DraftStatus
from benchmark.services.audit import audit_record
from benchmark.services.criteria import (
    CriterionError,
    draft_case_accept,
    draft_case_author_set,
    draft_case_difficulty_set,
)
from config.locks import row_lock, row_try_lock

# The defaults of ``heartbench construct-tasks``: three difficulty raters (majority of
# three), two reviewers per draft, a panel of four seniors deciding unanimously.
DEFAULT_RATERS = {TaskKind.DIFFICULTY: 3, TaskKind.REVIEW: 2, TaskKind.PANEL: 4}
CLAIM_TRIES = 32


def construction_work_open(
    *,
    project: ConstructionProject,
    kind: str,
    raters: int | None = None,
    panel_rule: str | None = None,
    actor=None,
) -> ConstructionWork:
    """Open (or reopen, with new settings) one kind of work on a project."""
    if kind not in TaskKind.values:
        raise AnnotationError(_("Unknown kind of work."))
    if raters is not None and raters < 1:
        raise AnnotationError(_("At least one expert per draft."))
    if panel_rule is not None and panel_rule not in PanelRule.values:
        raise AnnotationError(_("The panel rule is unanimous or majority."))
    with transaction.atomic():
        work, _created = ConstructionWork.objects.get_or_create(
            project=project, kind=kind, defaults={"raters": raters or DEFAULT_RATERS[kind]}
        )
        work.is_open = True
        work.raters = raters or work.raters
        work.panel_rule = panel_rule or work.panel_rule
        work.save()
        audit_record(
            actor=actor,
            action=AnnotationAction.CONSTRUCTION_WORK_OPEN,
            obj=work,
            data={"kind": kind, "raters": work.raters, "panel_rule": work.panel_rule},
        )
    return work


def drafts_authors_assign(*, project: ConstructionProject, users: list, actor=None) -> int:
    """Give the project's active drafts that have no author one, round-robin over ``users``
    in draft order; the number assigned."""
    if not users:
        raise AnnotationError(_("Name at least one author."))
    drafts = list(
        project.drafts.filter(status=DraftStatus.ACTIVE, author__isnull=True).order_by("position")
    )
    with transaction.atomic():
        for index, draft in enumerate(drafts):
            draft_case_author_set(draft=draft, author=users[index % len(users)], actor=actor)
    return len(drafts)


def _expire_lapsed(*, work: ConstructionWork, now: datetime) -> None:
    leases_lapse(
        ConstructionTask.objects.filter(work=work),
        now=now,
        action=AnnotationAction.CONSTRUCTION_TASK_LEASE_EXPIRED,
        describe=lambda t: {"draft": t.draft_id, "expert": t.expert_id, "kind": t.kind},
    )


def _try_claim(
    *, work: ConstructionWork, expert: Expert, draft_id: int, now: datetime
) -> ConstructionTask | None:
    try:
        with transaction.atomic():
            draft = row_try_lock(DraftCase, draft_id)
            # Re-count under the lock: another claim may have filled the draft meanwhile.
            if (
                draft is None
                or not drafts_to_hand_out(work=work, expert=expert, now=now)
                .filter(pk=draft_id)
                .exists()
            ):
                return None
            panel_round = (
                draft.panel_rounds.get(outcome=PanelRound.Outcome.PENDING)
                if work.kind == TaskKind.PANEL
                else None
            )
            task = ConstructionTask.objects.create(
                work=work,
                kind=work.kind,
                draft=draft,
                panel_round=panel_round,
                expert=expert,
                lease_expires_at=now + timedelta(seconds=work.lease_seconds),
            )
            audit_record(
                actor=expert.user,
                action=AnnotationAction.CONSTRUCTION_TASK_CLAIM,
                obj=task,
                data={"draft": str(draft), "kind": work.kind},
            )
            return task
    except IntegrityError:
        return None


def construction_task_claim_next(
    *, user, project: ConstructionProject, kind: str, now: datetime | None = None
) -> ConstructionTask | None:
    """Lease the next draft of this kind of work to the expert, or None when none is left for
    them. A task the expert holds comes back first, its lease renewed. The panel is for
    senior experts; review and panel never hand a draft to its author, and no kind hands one
    draft twice to one expert (per panel round)."""
    now = now or timezone.now()
    expert = selectors.expert_for_user(user=user)
    if not kind_permitted(kind=kind, expert=expert):
        raise AnnotationError(_("Only senior experts sit on the panel."))
    work = work_open(project=project, kind=kind)
    if work is None:
        raise AnnotationError(_("This work is not open on the project."))
    _expire_lapsed(work=work, now=now)
    held = ConstructionTask.objects.filter(
        work=work, expert=expert, status=ConstructionTask.Status.LEASED
    ).first()
    if held is not None:
        return lease_renew(held, seconds=work.lease_seconds, now=now)
    candidates = drafts_to_hand_out(work=work, expert=expert, now=now)
    for draft_id in candidates.values_list("pk", flat=True)[:CLAIM_TRIES]:
        task = _try_claim(work=work, expert=expert, draft_id=draft_id, now=now)
        if task is not None:
            return task
    return None


def _task_held(*, user, task_id: int, kind: str, now: datetime) -> ConstructionTask:
    """The expert's unsubmitted task, locked, its lease kept or won back (a lapsed lease while
    the draft still has the slot free), else ``LeaseLost``."""
    expert = selectors.expert_for_user(user=user)
    task = (
        ConstructionTask.objects.select_for_update(of=("self",))
        .select_related("work", "draft", "panel_round")
        .filter(pk=task_id, expert=expert, kind=kind)
        .first()
    )
    if task is None:
        raise AnnotationError(_("No such task."))
    if task.status == ConstructionTask.Status.SUBMITTED:
        raise AnnotationError(_("This task is already submitted."))
    if task.lease_expires_at <= now and task.status == ConstructionTask.Status.LEASED:
        task.status = ConstructionTask.Status.EXPIRED  # run out, not swept yet: the same case

    def taken() -> bool:
        others = ConstructionTask.objects.filter(
            tasks_holding(now), draft=task.draft, kind=kind, panel_round=task.panel_round
        ).exclude(pk=task.pk)
        return others.count() >= task.work.raters

    lease_win_back(
        task, taken=taken, lost=_("Your lease expired and the draft went to another expert.")
    )
    return task


def construction_task_renew(*, user, task_id: int, kind: str, now: datetime | None = None):
    """Extend the lease of the expert's task while they work on it (the API's renew)."""
    now = now or timezone.now()
    with transaction.atomic():
        task = _task_held(user=user, task_id=task_id, kind=kind, now=now)
        return lease_renew(task, seconds=task.work.lease_seconds, now=now)


def _task_submitting(*, user, task_id: int, kind: str, now: datetime) -> ConstructionTask:
    """The expert's task, locked, its lease held, and marked submitted."""
    task = _task_held(user=user, task_id=task_id, kind=kind, now=now)
    task.status, task.submitted_at = ConstructionTask.Status.SUBMITTED, now
    task.save(update_fields=["status", "submitted_at"])
    return task


def _submitted(*, task: ConstructionTask, answer: dict) -> None:
    audit_record(
        actor=task.expert.user,
        action=AnnotationAction.CONSTRUCTION_TASK_SUBMIT,
        obj=task,
        data={"kind": task.kind, "draft": str(task.draft), **answer},
    )


def _submitted_tasks(task: ConstructionTask):
    return ConstructionTask.objects.filter(
        draft=task.draft,
        kind=task.kind,
        panel_round=task.panel_round,
        status=ConstructionTask.Status.SUBMITTED,
    )


def difficulty_mark_submit(
    *,
    user,
    task_id: int,
    difficulty: str,
    reason: str = "",
    comment: str = "",
    now: datetime | None = None,
) -> DifficultyMark:
    """Record an expert's difficulty mark: normal, or hard with a reason category ("other"
    needs a comment). The last of the draft's marks sets its difficulty by majority
    (``difficulty_decide``) through ``draft_case_difficulty_set``."""
    comment = (comment or "").strip()
    if difficulty not in ("normal", "hard"):
        raise AnnotationError(_("Mark the case normal or hard."))
    if difficulty == "normal":
        reason = ""
    elif reason not in DifficultyMark.Reason.values:
        raise AnnotationError(_("Say why the case is hard."))
    if reason == DifficultyMark.Reason.OTHER and not comment:
        raise AnnotationError(_("Describe the other reason in the comment."))
    now = now or timezone.now()
    with transaction.atomic():
        task = _task_submitting(user=user, task_id=task_id, kind=TaskKind.DIFFICULTY, now=now)
        mark = DifficultyMark.objects.create(
            task=task, difficulty=difficulty, reason=reason, comment=comment
        )
        _submitted(task=task, answer={"difficulty": difficulty, "reason": reason})
        marks = DifficultyMark.objects.filter(task__in=_submitted_tasks(task))
        if marks.count() >= task.work.raters:
            decided, why = difficulty_decide(list(marks.values_list("difficulty", "reason")))
            try:
                draft_case_difficulty_set(
                    draft=task.draft, difficulty=decided, reason=why, actor=user
                )
            except CriterionError as exc:  # the draft left the funnel meanwhile
                raise AnnotationError(str(exc)) from exc
    return mark


def criterion_review_submit(
    *,
    user,
    task_id: int,
    verdicts: dict[int, tuple[str, str]],
    versions: dict[int, int] | None = None,
    now: datetime | None = None,
) -> list[CriterionReview]:
    """Record an expert's review of every active criterion of the draft: ``verdicts`` maps
    criterion id to (verdict, comment); a comment is required unless the verdict is clear.
    ``versions`` (criterion id to the version the page showed) refuses a review of a text the
    author has changed since."""
    now = now or timezone.now()
    with transaction.atomic():
        task = _task_submitting(user=user, task_id=task_id, kind=TaskKind.REVIEW, now=now)
        criteria = list(criteria_active(draft=task.draft))
        if set(verdicts) != {c.pk for c in criteria}:
            raise AnnotationError(_("Review every criterion of the draft."))
        reviews = []
        for criterion in criteria:
            if versions is not None and versions.get(criterion.pk) != criterion.version:
                raise AnnotationError(
                    _("Criterion %(n)d was revised while you read it; read it again.")
                    % {"n": criterion.position + 1}
                )
            verdict, comment = verdicts[criterion.pk]
            comment = (comment or "").strip()
            if verdict not in CriterionReview.Verdict.values:
                raise AnnotationError(_("Unknown verdict."))
            if verdict != CriterionReview.Verdict.CLEAR and not comment:
                raise AnnotationError(
                    _("Criterion %(n)d: say what is wrong in the comment.")
                    % {"n": criterion.position + 1}
                )
            reviews.append(
                CriterionReview(
                    task=task,
                    criterion=criterion,
                    criterion_version=criterion.version,
                    verdict=verdict,
                    comment=comment,
                )
            )
        CriterionReview.objects.bulk_create(reviews)
        _submitted(
            task=task, answer={"verdicts": {str(r.criterion_id): r.verdict for r in reviews}}
        )
    return reviews


def panel_send(*, user, draft: DraftCase) -> PanelRound:
    """The author sends a reviewed draft to the senior panel (again, after a return)."""
    with transaction.atomic():
        locked = row_lock(DraftCase, draft.pk)
        if locked.author_id != user.pk or locked.status != DraftStatus.ACTIVE:
            raise AnnotationError(_("Only the author sends an active draft to the panel."))
        if not review_complete(project=locked.project).filter(pk=locked.pk).exists():
            raise AnnotationError(_("The reviews of this draft are not complete."))
        if locked.panel_rounds.filter(outcome=PanelRound.Outcome.PENDING).exists():
            raise AnnotationError(_("The draft is with the panel already."))
        panel_round = PanelRound.objects.create(
            draft=locked, number=locked.panel_rounds.count() + 1
        )
        audit_record(
            actor=user,
            action=AnnotationAction.PANEL_ROUND_OPEN,
            obj=panel_round,
            data={"draft": str(locked), "round": panel_round.number},
        )
    return panel_round


def panel_vote_submit(
    *, user, task_id: int, vote: str, reason: str = "", now: datetime | None = None
) -> PanelVote:
    """Record a senior's vote (a return needs a reason). The last vote of the round decides
    by the work's rule: accepted through ``draft_case_accept`` with the votes recorded, or
    returned to the author with the reasons."""
    reason = (reason or "").strip()
    if vote not in PanelVote.Vote.values:
        raise AnnotationError(_("Vote accept or return."))
    if vote == PanelVote.Vote.RETURN and not reason:
        raise AnnotationError(_("Say why the draft goes back to its author."))
    now = now or timezone.now()
    with transaction.atomic():
        task = _task_submitting(user=user, task_id=task_id, kind=TaskKind.PANEL, now=now)
        panel_vote = PanelVote.objects.create(task=task, vote=vote, reason=reason)
        _submitted(task=task, answer={"vote": vote, "reason": reason})
        votes = list(
            PanelVote.objects.filter(task__in=_submitted_tasks(task))
            .select_related("task__expert")
            .order_by("pk")
        )
        if len(votes) >= task.work.raters:
            _panel_decide(task=task, votes=votes, user=user, now=now)
    return panel_vote


def _panel_decide(*, task: ConstructionTask, votes: list[PanelVote], user, now) -> None:
    panel_round, rule = task.panel_round, task.work.panel_rule
    record = {
        "round": panel_round.number,
        "rule": rule,
        "votes": [
            {"rater": v.task.expert.pseudonym, "vote": v.vote, "reason": v.reason} for v in votes
        ],
    }
    if panel_accepts(votes=[v.vote for v in votes], rule=rule):
        try:
            draft_case_accept(draft=task.draft, actor=user, data=record)
        except CriterionError as exc:
            raise AnnotationError(str(exc)) from exc
        panel_round.outcome = PanelRound.Outcome.ACCEPTED
    else:
        panel_round.outcome = PanelRound.Outcome.RETURNED
    panel_round.decided_at = now
    panel_round.save(update_fields=["outcome", "decided_at"])
    audit_record(
        actor=user,
        action=AnnotationAction.PANEL_ROUND_DECIDE,
        obj=panel_round,
        data={"outcome": panel_round.outcome, **record},
    )
