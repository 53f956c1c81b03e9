"""A study after its creation: enrolling experts, closing (or extending), deleting."""

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext, ngettext

from annotation import selectors as annotation_selectors
from annotation import services as annotation_services
from annotation.models import Pool
from annotation.services import AnnotationError
from benchmark.services.audit import audit_record
from validation import closing
from validation.audit_actions import ValidationAction
from validation.dashboard.services import study_set_due_date
from validation.models import Study, StudyUnit
from validation.selectors import study_units_with_ratings
from validation.services.announce import study_closed_announce
from validation.services.locks import study_lock
from validation.services.settle import study_settle, study_units_to_senior
from validation.services.stored import study_figures_warm_later
from validation.services.studies import StudyError, study_experts_allowed


def study_close(
    *,
    study: Study,
    actor=None,
    partial: str = closing.DEFAULT_PARTIAL,
    unrated: str = closing.DEFAULT_UNRATED,
    reason: str = "",
) -> dict[str, int]:
    """Stop rating and decide what becomes of the units short of three ratings.

    ``partial`` (units with some ratings) and ``unrated`` (units nobody rated) are each
    ``senior`` (a senior expert decides the unit) or ``drop`` (the unit leaves the sample, with
    its reason kept); the defaults and why are ``validation.closing``'s.
    ``reason`` (say, "stopped early at look 3") is kept in the audit row.
    Returns the counts: ``complete``, ``partly_rated`` and ``never_rated`` units at the
    close, ``gold`` written now, ``incomplete`` (sent to a senior), ``dropped``, and
    ``awaiting`` (split units waiting for a senior).
    """
    study_check_closable(study=study)
    for flag, choice in (("--partial", partial), ("--unrated", unrated)):
        if choice not in closing.CHOICES:
            raise StudyError(f"{flag} must be one of {', '.join(closing.CHOICES)}, got {choice!r}")
    with transaction.atomic():
        annotation_services.pool_set_status(pool=study.pool, status="closed", actor=actor)
        counts = study_settle(study=study)
        raters = study.pool.raters_per_unit
        short = list(study_units_with_ratings(study=study).filter(state=StudyUnit.State.PENDING))
        # A pending unit has fewer ratings than raters once the study is settled; should one
        # have them all, it goes to a senior as every short unit did before the choice.
        group = {u.pk: closing.completion_of(ratings=u.ratings, raters=raters) for u in short}
        choice = {closing.PARTLY_RATED: partial, closing.NEVER_RATED: unrated}
        drop = [u for u in short if choice.get(group[u.pk]) == closing.DROP]
        senior = [u for u in short if choice.get(group[u.pk]) != closing.DROP]
        study_units_to_senior(study=study, study_units=senior)
        for completion in (closing.PARTLY_RATED, closing.NEVER_RATED):
            dropped = [u.pk for u in drop if group[u.pk] == completion]
            StudyUnit.objects.filter(pk__in=dropped).update(
                state=StudyUnit.State.DROPPED, drop_reason=completion
            )
        study.closed_at = timezone.now()
        study.save(update_fields=["closed_at"])
        awaiting = study.units.filter(state=StudyUnit.State.AWAITING).count()
        partly = sum(1 for g in group.values() if g == closing.PARTLY_RATED)
        never = sum(1 for g in group.values() if g == closing.NEVER_RATED)
        result = {
            "complete": study.units.count() - partly - never,
            "partly_rated": partly,
            "never_rated": never,
            **counts,
            "incomplete": len(senior),
            "dropped": len(drop),
            "awaiting": awaiting,
        }
        audit_record(
            actor=actor,
            action=ValidationAction.STUDY_CLOSE,
            obj=study,
            data={
                **result,
                "partial": partial,
                "unrated": unrated,
                "dropped_units": [u.unit_id for u in drop],
            }
            | ({"reason": reason} if reason else {}),
        )
        study_closed_announce(study=study, counts=result)
        study_figures_warm_later(study=study)
    study.pool.refresh_from_db()
    return result


def study_check_closable(*, study: Study) -> None:
    """Refuse what ``study_close`` would refuse, before anyone is asked to confirm."""
    status = study.pool.status
    if status != Pool.Status.OPEN:
        raise StudyError(
            gettext("study %(name)s is %(status)s: only an open study closes")
            % {"name": study.name, "status": study.pool.get_status_display()}
        )


def study_extend(*, study: Study, due_date: date, actor=None) -> Study:
    """Keep an open study open and move its due date: the alternative to closing it short."""
    if study.pool.status != "open":
        raise StudyError(
            gettext("study %(name)s is %(status)s, not open")
            % {"name": study.name, "status": study.pool.get_status_display()}
        )
    if due_date <= timezone.localdate():
        raise StudyError(
            gettext("the new due date must be after today, got %(date)s")
            % {"date": due_date.isoformat()}
        )
    return study_set_due_date(study=study, due_date=due_date, actor=actor)


@dataclass(frozen=True)
class Enrolment:
    enrolled: list[str]  # usernames added now
    already: list[str]  # usernames that were in the study before


def study_enrol(
    *, study: Study, usernames: Sequence[str] = (), all_active: bool = False, actor=None
) -> Enrolment:
    """Let experts take the study's units: the named ones, or every active expert.

    For experts who joined after the study was created (``study_create`` enrols the active
    experts of that moment). Already enrolled is reported, not refused. Unknown names refuse
    the whole request: nobody is enrolled.
    """
    if bool(usernames) == all_active:
        raise StudyError(gettext("either name the experts to enrol or enrol all active ones"))
    if all_active:
        experts = study_experts_allowed(
            dataset=study.dataset, experts=annotation_selectors.experts_active(), named=None
        )
    else:
        wanted = list(dict.fromkeys(usernames))
        found = annotation_selectors.experts_by_username(usernames=wanted)
        unknown = [name for name in wanted if name not in found]
        if unknown:
            raise StudyError(
                gettext("no expert named: %(names)s; nobody was enrolled")
                % {"names": ", ".join(unknown)}
            )
        experts = [found[name] for name in wanted]
        experts = study_experts_allowed(dataset=study.dataset, experts=experts, named=wanted)
    with transaction.atomic():
        try:
            added = annotation_services.pool_enrol_experts(
                pool=study.pool, experts=experts, actor=actor
            )
        except AnnotationError as exc:
            raise StudyError(str(exc)) from exc
        enrolled = sorted(e.user.username for e in added)
        already = sorted({e.user.username for e in experts} - set(enrolled))
        if enrolled:
            audit_record(
                actor=actor,
                action=ValidationAction.STUDY_ENROL,
                obj=study,
                data={"enrolled": enrolled, "already": already, "all_active": all_active},
            )
    return Enrolment(enrolled=enrolled, already=already)


def study_delete(*, study: Study, actor=None) -> int:
    """Delete a study no expert has submitted work in, and its pool with it.

    The pool holds the study's units and is what experts and seniors see; left behind, it
    would keep listing a study that no longer exists. A study with submitted work is refused:
    ratings, the pay ledger and the audit trail refer to it, so close it instead. Returns how
    many units went.
    """
    with transaction.atomic():
        study = study_lock(study_id=study.pk)
        submitted = annotation_selectors.pool_submissions_count(pool=study.pool)
        if submitted:
            raise StudyError(study_delete_refusal(name=study.name, submissions=submitted))
        pool = study.pool
        audit_record(
            actor=actor,
            action=ValidationAction.STUDY_DELETE,
            obj=study,
            data={"name": study.name, "status": pool.status, "units": study.units.count()},
        )
        study.delete()
        try:
            return annotation_services.pool_delete(pool=pool, actor=actor)
        except AnnotationError as exc:
            raise StudyError(str(exc)) from exc


def study_delete_refusal(*, name: str, submissions: int) -> str:
    """Why a study with expert work cannot be deleted (the admin shows it before the delete)."""
    return ngettext(
        "%(name)r holds %(count)d submission by experts: submitted work is never deleted; "
        "close the study instead.",
        "%(name)r holds %(count)d submissions by experts: submitted work is never deleted; "
        "close the study instead.",
        submissions,
    ) % {"name": name, "count": submissions}


def study_stop_early(*, study: Study, actor) -> dict[str, int]:
    """Close a sequentially monitored study at its current look, once every gate condition of
    every judge is decided there: the units short of their ratings leave the
    sample (the look's complete cases hold the answer), and the close's audit row says
    "stopped early at look k"."""
    # Deferred: the monitoring needs numpy and scipy, which the dashboard's other pages don't.
    from validation.dashboard.monitoring import study_monitoring

    monitoring = study_monitoring(study=study)
    if monitoring is None:
        raise StudyError(f"study {study.name} is not monitored sequentially: close it instead")
    if not monitoring.stoppable:
        if study.pool.status != "open" or not monitoring.monitor.look:
            raise StudyError(f"study {study.name} has no look to stop at while it is open")
        raise StudyError(
            f"study {study.name}: not every gate condition is decided at look "
            f"{monitoring.monitor.look}; keep rating"
        )
    return study_close(
        study=study,
        actor=actor,
        partial=closing.DROP,
        unrated=closing.DROP,
        reason=f"stopped early at look {monitoring.monitor.look}",
    )
