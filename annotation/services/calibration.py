"""Calibration: sets with reference labels, sittings, results, and the pools' quality policy."""

import secrets
from collections.abc import Sequence
from datetime import datetime, timedelta

from django.db import IntegrityError, transaction

from annotation import quality
from annotation.assignment import Candidate, rank_candidates
from annotation.audit_actions import AnnotationAction
from annotation.models import (
    ACTIVE,
    Assignment,
    CalibrationAttempt,
    CalibrationSet,
    Expert,
    Label,
    Pool,
    ReferenceLabel,
    Unit,
)
from annotation.references import ReferenceRow
from annotation.selectors import quality as selectors_quality
from annotation.selectors.work import lease_open_in_pool
from annotation.services.core import pool_units_create
from annotation.services.errors import AnnotationError
from annotation.services.leases import lease_held_renew
from annotation.services.locks import pool_lock
from benchmark.models import Dataset, Response, RubricItem
from benchmark.selectors.responses import response_find
from benchmark.selectors.rubric import case_criteria
from benchmark.services.audit import audit_record
from config.locks import row_lock

# A calibration sitting can take a while; its lease is the same as a study's default.
CALIBRATION_LEASE_SECONDS = 30 * 60


def _bar(value: float | None, name: str) -> None:
    if value is not None and not 0 <= value <= 1:
        raise AnnotationError(f"{name} must be between 0 and 1, got {value}")


def calibration_create(
    *,
    name: str,
    dataset: Dataset,
    references: Sequence[ReferenceRow],
    senior: Expert,
    pass_threshold: float = 0.8,
    actor=None,
) -> CalibrationSet:
    """A calibration set over the named responses, with the senior expert's reference labels.

    Everything is checked before anything is written; a bad row names its line and nothing
    is created.
    """
    if not senior.is_senior:
        raise AnnotationError(f"{senior} is not a senior expert; only seniors set references")
    _bar(pass_threshold, "pass threshold")
    if not references:
        raise AnnotationError("a calibration set needs at least one unit")
    if Pool.objects.filter(name=name).exists():
        raise AnnotationError(f"a pool or study named {name!r} exists already")
    planned: list[tuple[Response, list[tuple[RubricItem, bool]]]] = []
    for row in references:
        response = (
            response_find(dataset=dataset, question_id=row.question_id, model=row.model)
            .select_related("case")
            .first()
        )
        if response is None:
            raise AnnotationError(
                f"line {row.line}: no response of model {row.model!r} to case "
                f"{row.question_id!r} in {dataset}"
            )
        items = list(case_criteria(case_id=response.case_id).order_by("position"))
        if len(items) != len(row.hits):
            raise AnnotationError(
                f"line {row.line}: case {row.question_id} has {len(items)} criteria "
                f"but {len(row.hits)} hits were given"
            )
        planned.append((response, list(zip(items, row.hits, strict=True))))
    with transaction.atomic():
        # Always open: experts are sent here by the studies that require it.
        pool = Pool.objects.create(
            name=name,
            status=Pool.Status.OPEN,
            raters_per_unit=1,
            lease_seconds=CALIBRATION_LEASE_SECONDS,
        )
        calibration_set = CalibrationSet.objects.create(
            pool=pool, pass_threshold=pass_threshold, reference_by=senior
        )
        units = pool_units_create(
            pool=pool, units=[Unit(pool=pool, response=response) for response, _ in planned]
        )
        ReferenceLabel.objects.bulk_create(
            ReferenceLabel(unit=unit, rubric_item=item, hit=hit)
            for unit, (_, labels) in zip(units, planned, strict=True)
            for item, hit in labels
        )
        audit_record(
            actor=actor,
            action=AnnotationAction.CALIBRATION_CREATE,
            obj=calibration_set,
            data={"units": len(planned), "senior": senior.pk, "pass_threshold": pass_threshold},
        )
    return calibration_set


def pool_set_quality_policy(
    *,
    pool: Pool,
    calibration: CalibrationSet | None,
    min_quality: float | None = None,
    hard_min_quality: float | None = None,
    actor=None,
) -> Pool:
    """What a study asks of its experts: a passed calibration, a quality floor that sends
    an expert back to calibration, and the quality needed for hard cases."""
    _bar(min_quality, "minimum quality")
    _bar(hard_min_quality, "quality for hard cases")
    if min_quality is not None and calibration is None:
        raise AnnotationError("a quality floor needs a calibration set to send experts back to")
    if calibration is not None and calibration.pool_id == pool.pk:
        raise AnnotationError("a calibration set cannot gate itself")
    with transaction.atomic():
        pool = pool_lock(pool_id=pool.pk)
        if hasattr(pool, "calibration_set"):
            raise AnnotationError(f"{pool} is a calibration set, not a study")
        before = [pool.calibration_id, pool.min_quality, pool.hard_min_quality]
        pool.calibration = calibration
        pool.min_quality = min_quality
        pool.hard_min_quality = hard_min_quality
        pool.save(update_fields=["calibration", "min_quality", "hard_min_quality"])
        audit_record(
            actor=actor,
            action=AnnotationAction.POOL_QUALITY_POLICY,
            obj=pool,
            data={
                "from": before,
                "to": [pool.calibration_id, min_quality, hard_min_quality],
            },
        )
    return pool


def calibration_claim_next(
    *, expert: Expert, calibration_set: CalibrationSet, reason: str, now: datetime
) -> Assignment | None:
    """Lease the next unit of the expert's open sitting (starting one if needed).

    Called by ``assignment_claim_next`` inside its transaction, for experts a study sends
    to calibration and for experts who open the calibration set directly.
    """
    pool = calibration_set.pool
    held = lease_held_renew(pool=pool, expert=expert, now=now)
    if held is not None:
        return held
    attempt = CalibrationAttempt.objects.filter(
        calibration_set=calibration_set, expert=expert, finished_at__isnull=True
    ).first()
    if attempt is None:
        attempt = CalibrationAttempt.objects.create(
            calibration_set=calibration_set, expert=expert, reason=reason, started_at=now
        )
        audit_record(
            actor=expert.user,
            action=AnnotationAction.CALIBRATION_START,
            obj=attempt,
            data={"reason": reason},
        )
    done = Assignment.objects.filter(attempt=attempt, status__in=ACTIVE).values("unit_id")
    left = Unit.objects.filter(pool=pool).exclude(pk__in=done).values_list("pk", flat=True)
    ranked = rank_candidates(
        candidates=[Candidate(unit_id=pk, taken=0) for pk in left],
        specialties=(),
        expert_key=expert.pseudonym,
    )
    if not ranked:
        return None
    try:
        with transaction.atomic():
            return Assignment.objects.create(
                pool=pool,
                unit_id=ranked[0],
                expert=expert,
                kind=Assignment.Kind.CALIBRATION,
                attempt=attempt,
                shuffle_seed=secrets.randbits(62),
                lease_expires_at=now + timedelta(seconds=pool.lease_seconds),
            )
    except IntegrityError:
        # The same expert claimed from a second tab at the same moment: give that lease back.
        return lease_open_in_pool(pool=pool, expert=expert)


def calibration_finish_if_complete(*, attempt: CalibrationAttempt, now: datetime) -> bool:
    """Score the sitting against the references once every unit is submitted (caller's
    transaction). Returns True when this call finished it."""
    attempt = row_lock(CalibrationAttempt, attempt.pk)
    if attempt.finished_at is not None:
        return False
    calibration_set = attempt.calibration_set
    units = set(Unit.objects.filter(pool_id=calibration_set.pool_id).values_list("pk", flat=True))
    submitted = set(
        Assignment.objects.filter(attempt=attempt, status=Assignment.Status.SUBMITTED).values_list(
            "unit_id", flat=True
        )
    )
    if units - submitted:
        return False
    labels = {
        (unit_id, item_id): hit
        for unit_id, item_id, hit in Label.objects.filter(
            submission__assignment__attempt=attempt
        ).values_list("submission__unit_id", "rubric_item_id", "hit")
    }
    reference = {
        (unit_id, item_id): hit
        for unit_id, item_id, hit in ReferenceLabel.objects.filter(unit_id__in=units).values_list(
            "unit_id", "rubric_item_id", "hit"
        )
    }
    result = quality.reference_agreement(labels=labels, reference=reference)
    attempt.criteria = result.compared
    attempt.agreed = result.agreed
    attempt.agreement = result.share
    attempt.passed = result.share is not None and result.share >= calibration_set.pass_threshold
    attempt.finished_at = now
    attempt.save()
    audit_record(
        actor=attempt.expert.user,
        action=AnnotationAction.CALIBRATION_FINISH,
        obj=attempt,
        data={"agreement": attempt.agreement, "passed": attempt.passed},
    )
    return True


def calibration_reason(*, expert: Expert, calibration_set: CalibrationSet) -> str:
    latest = selectors_quality.calibration_latest(expert=expert, calibration_set=calibration_set)
    return selectors_quality.FIRST if latest is None else selectors_quality.RETAKE
