"""Writing a draft case's criteria and deciding the draft's fate in the funnel.

A draft criterion is added (by an expert, or read from a synthesis reply), revised as a new
numbered version with author and reason (like a dataset's rubric item), or removed with the
stage that removed it and why: nothing in the funnel disappears silently. The draft case
itself is removed at a stage, marked normal or hard by the difficulty tier, and accepted by the
senior panel. Who may do each is not this app's rule (experts are annotation's).
"""

from django.db import transaction
from django.db.models import Max
from django.utils.translation import gettext as _

from benchmark.audit_actions import BenchmarkAction
from benchmark.models import DraftCase, DraftCriterion, DraftCriterionVersion, DraftStatus
from benchmark.rubric_rules import criterion_wording_problems
from benchmark.services.audit import audit_record
from benchmark.services.rubric import RubricEditError, rubric_points_check
from benchmark.taxonomy import BY_CODE

DIFFICULTIES = ("normal", "hard")


class CriterionError(ValueError):
    """The change is refused, with the reason in words an expert can act on."""


def _checked(*, ability: str, points, text: str) -> tuple[str, int | None, str]:
    if ability not in BY_CODE:
        raise CriterionError(_("Unknown ability."))
    try:
        points = rubric_points_check(ability=ability, points=points)
    except RubricEditError as error:
        raise CriterionError(str(error)) from error
    text = (text or "").strip()
    if not text:
        raise CriterionError(_("The text of a criterion must not be empty."))
    problems = criterion_wording_problems(text)
    if problems:
        raise CriterionError(" ".join(problems))
    return ability, points, text


def draft_criterion_check(*, ability: str, points, text: str) -> tuple[str, int | None, str]:
    """The criterion as it would be stored, or ``CriterionError`` with the reason: for a form
    that reports before it saves."""
    return _checked(ability=ability, points=points, text=text)


def draft_criterion_add(
    *,
    draft: DraftCase,
    ability: str,
    points: int | None,
    text: str,
    author=None,
    origin: str = DraftCriterion.Origin.HAND,
    provenance: dict | None = None,
) -> DraftCriterion:
    """Append a criterion to the draft's rubric as version 1; ``provenance`` holds a
    synthesised criterion's ``synthesis_run``, ``template_version``, ``model_name`` and
    ``raw_reply``. A hand-written criterion needs an author."""
    ability, points, text = _checked(ability=ability, points=points, text=text)
    if origin == DraftCriterion.Origin.HAND and author is None:
        raise CriterionError(_("A criterion written by hand needs an author."))
    with transaction.atomic():
        locked = DraftCase.objects.select_for_update().get(pk=draft.pk)
        if locked.status != DraftStatus.ACTIVE:
            raise CriterionError(_("The draft is no longer in the funnel."))
        last = locked.criteria.aggregate(last=Max("position"))["last"]
        criterion = DraftCriterion.objects.create(
            draft=locked,
            position=0 if last is None else last + 1,
            ability=ability,
            points=points,
            text=text,
            origin=origin,
            author=author,
            **(provenance or {}),
        )
        DraftCriterionVersion.objects.create(
            criterion=criterion, number=1, ability=ability, points=points, text=text,
            author=author, reason="",
        )  # fmt: skip
        audit_record(
            actor=author,
            action=BenchmarkAction.DRAFT_CRITERION_ADD,
            obj=criterion,
            data={"draft": str(locked), "position": criterion.position, "origin": origin},
        )
    return criterion


def draft_criterion_revise(
    *, criterion: DraftCriterion, text: str, points: int | None, ability: str, author, reason: str
) -> DraftCriterion:
    """Change a criterion as version n+1; refuses no author, no reason, or no change. The row
    is locked, so two concurrent revisions get n+1 and n+2 in turn."""
    ability, points, text = _checked(ability=ability, points=points, text=text)
    reason = (reason or "").strip()
    if author is None:
        raise CriterionError(_("An edit needs an author."))
    if not reason:
        raise CriterionError(_("Give a reason for the change."))
    with transaction.atomic():
        locked = DraftCriterion.objects.select_for_update().get(pk=criterion.pk)
        if locked.status != DraftCriterion.Status.ACTIVE:
            raise CriterionError(_("The criterion was removed."))
        before = {"ability": locked.ability, "points": locked.points, "text": locked.text}
        if before == {"ability": ability, "points": points, "text": text}:
            raise CriterionError(_("Nothing changed: the text and points are the same."))
        locked.ability, locked.points, locked.text = ability, points, text
        locked.version += 1
        locked.save(update_fields=["ability", "points", "text", "version"])
        DraftCriterionVersion.objects.create(
            criterion=locked, number=locked.version, ability=ability, points=points, text=text,
            author=author, reason=reason,
        )  # fmt: skip
        audit_record(
            actor=author,
            action=BenchmarkAction.DRAFT_CRITERION_REVISE,
            obj=locked,
            data={"to_version": locked.version, "reason": reason, "before": before},
        )
    return locked


def draft_criterion_remove(
    *, criterion: DraftCriterion, stage: str, reason: str, actor=None
) -> DraftCriterion:
    """Take a criterion out of the draft's rubric, recording the stage and the reason."""
    if not stage.strip() or not reason.strip():
        raise CriterionError(_("A removal names its stage and its reason."))
    with transaction.atomic():
        locked = DraftCriterion.objects.select_for_update().get(pk=criterion.pk)
        if locked.status == DraftCriterion.Status.REMOVED:
            raise CriterionError(_("The criterion was removed already."))
        locked.status = DraftCriterion.Status.REMOVED
        locked.removed_stage, locked.removed_reason = stage.strip(), reason.strip()
        locked.save(update_fields=["status", "removed_stage", "removed_reason"])
        audit_record(
            actor=actor,
            action=BenchmarkAction.DRAFT_CRITERION_REMOVE,
            obj=locked,
            data={"stage": locked.removed_stage, "reason": locked.removed_reason},
        )
    return locked


def _draft_locked(draft: DraftCase, *, allowed: tuple[str, ...]) -> DraftCase:
    locked = DraftCase.objects.select_for_update().get(pk=draft.pk)
    if locked.status not in allowed:
        raise CriterionError(
            _("The draft is %(status)s.") % {"status": locked.get_status_display()}
        )
    return locked


def draft_case_remove(*, draft: DraftCase, stage: str, reason: str, actor=None) -> DraftCase:
    """Take a draft out of the funnel, recording the stage and the reason."""
    if not stage.strip() or not reason.strip():
        raise CriterionError(_("A removal names its stage and its reason."))
    with transaction.atomic():
        locked = _draft_locked(draft, allowed=(DraftStatus.ACTIVE, DraftStatus.ACCEPTED))
        locked.status = DraftStatus.REMOVED
        locked.removed_stage, locked.removed_reason = stage.strip(), reason.strip()
        locked.save(update_fields=["status", "removed_stage", "removed_reason"])
        audit_record(
            actor=actor,
            action=BenchmarkAction.DRAFT_REMOVE,
            obj=locked,
            data={"stage": locked.removed_stage, "reason": locked.removed_reason},
        )
    return locked


def draft_case_difficulty_set(
    *, draft: DraftCase, difficulty: str, reason: str = "", actor=None
) -> DraftCase:
    """Record the difficulty tier's decision (normal or hard) and its reason category."""
    if difficulty not in DIFFICULTIES:
        raise CriterionError(_("Difficulty is normal or hard."))
    with transaction.atomic():
        locked = _draft_locked(draft, allowed=(DraftStatus.ACTIVE, DraftStatus.ACCEPTED))
        before = locked.difficulty
        locked.difficulty, locked.difficulty_reason = difficulty, reason.strip()
        locked.save(update_fields=["difficulty", "difficulty_reason"])
        audit_record(
            actor=actor,
            action=BenchmarkAction.DRAFT_DIFFICULTY,
            obj=locked,
            data={"before": before, "after": difficulty, "reason": locked.difficulty_reason},
        )
    return locked


def draft_case_accept(*, draft: DraftCase, actor=None, data: dict | None = None) -> DraftCase:
    """The senior panel accepts the draft for publishing; ``data`` records the panel's votes."""
    with transaction.atomic():
        locked = _draft_locked(draft, allowed=(DraftStatus.ACTIVE,))
        locked.status = DraftStatus.ACCEPTED
        locked.save(update_fields=["status"])
        audit_record(actor=actor, action=BenchmarkAction.DRAFT_ACCEPT, obj=locked, data=data or {})
    return locked


def draft_case_publish(*, draft: DraftCase, dataset, actor=None) -> DraftCase:
    """The accepted draft is a case of the published ``dataset`` now; it leaves the funnel."""
    with transaction.atomic():
        locked = _draft_locked(draft, allowed=(DraftStatus.ACCEPTED,))
        locked.status = DraftStatus.PUBLISHED
        locked.save(update_fields=["status"])
        audit_record(
            actor=actor,
            action=BenchmarkAction.DRAFT_PUBLISH,
            obj=locked,
            data={"dataset": str(dataset)},
        )
    return locked


def draft_case_author_set(*, draft: DraftCase, author, actor=None) -> DraftCase:
    """Make ``author`` the owner of the draft's rubric (who revises it and mock-scores it)."""
    with transaction.atomic():
        locked = _draft_locked(draft, allowed=(DraftStatus.ACTIVE,))
        before = locked.author.get_username() if locked.author else None
        locked.author = author
        locked.save(update_fields=["author"])
        audit_record(
            actor=actor,
            action=BenchmarkAction.DRAFT_AUTHOR,
            obj=locked,
            data={"before": before, "after": author.get_username()},
        )
    return locked
