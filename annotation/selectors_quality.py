"""Reads about an expert's standing: running agreement, calibration state and certificates."""

from dataclasses import dataclass
from datetime import datetime

from django.db.models import QuerySet

from annotation import quality
from annotation.models import (
    Assignment,
    CalibrationAttempt,
    CalibrationSet,
    Certificate,
    Expert,
    PeerAgreement,
    Pool,
)

FIRST = "first"
RECALIBRATION = "recalibration"
RETAKE = "retake"


@dataclass(frozen=True)
class ExpertQuality:
    peer: quality.Agreement
    calibration: float | None
    quality: float | None


def expert_peer_agreement(*, expert: Expert, since: datetime | None = None) -> quality.Agreement:
    """Pairwise agreement with the other raters on the expert's most recent completed units
    (at most ``QUALITY_WINDOW``, those submitted since ``since`` when given).

    Sums the rows recorded as each unit completed (``annotation.PeerAgreement``: all the
    pool's raters, at least two, submitted), so no label is read on the claim path.
    """
    rows = PeerAgreement.objects.filter(expert=expert)
    if since is not None:
        rows = rows.filter(submission__submitted_at__gte=since)
    recent = list(
        rows.order_by("-submission__submitted_at", "-submission_id").values_list(
            "agreed", "compared"
        )[: quality.QUALITY_WINDOW]
    )
    return quality.Agreement(
        agreed=sum(agreed for agreed, _ in recent),
        compared=sum(compared for _, compared in recent),
        units=len(recent),
    )


def calibration_latest(
    *, expert: Expert, calibration_set: CalibrationSet | None = None
) -> CalibrationAttempt | None:
    """The expert's most recent finished calibration (of one set, or of any)."""
    attempts = CalibrationAttempt.objects.filter(expert=expert, finished_at__isnull=False)
    if calibration_set is not None:
        attempts = attempts.filter(calibration_set=calibration_set)
    return attempts.order_by("-finished_at", "-id").first()


def expert_quality_get(*, expert: Expert, since: datetime | None = None) -> ExpertQuality:
    """Running quality: peer agreement when it rests on enough units, else calibration."""
    peer = expert_peer_agreement(expert=expert, since=since)
    latest = calibration_latest(expert=expert)
    calibration = latest.agreement if latest is not None else None
    return ExpertQuality(
        peer=peer,
        calibration=calibration,
        quality=quality.running_quality(peer=peer, calibration=calibration),
    )


def calibration_due(*, expert: Expert, pool: Pool) -> str | None:
    """Why the expert must (re)take the pool's calibration before study work, or None.

    Recalibration looks only at units submitted after the last pass, so passing it clears
    the drop instead of being undone at once by the same old units.
    """
    if pool.calibration_id is None:
        return None
    passed = (
        CalibrationAttempt.objects.filter(
            expert=expert, calibration_set_id=pool.calibration_id, passed=True
        )
        .order_by("-finished_at")
        .first()
    )
    if passed is None:
        # A sitting after a failed one is a retake, as when the set is opened directly.
        tried = CalibrationAttempt.objects.filter(
            expert=expert, calibration_set_id=pool.calibration_id, finished_at__isnull=False
        ).exists()
        return RETAKE if tried else FIRST
    if pool.min_quality is not None and quality.below_bar(
        peer=expert_peer_agreement(expert=expert, since=passed.finished_at), bar=pool.min_quality
    ):
        return RECALIBRATION
    return None


def calibration_history(*, expert: Expert) -> QuerySet[CalibrationAttempt]:
    return CalibrationAttempt.objects.filter(expert=expert).select_related("calibration_set__pool")


def calibration_outcome(*, assignment: Assignment) -> dict | None:
    """The result of the sitting that submitting this calibration unit finished, else None.

    Only whole-sitting figures, and only once every unit of it is submitted: never a
    reference label, and nothing while a unit of the sitting is still open.
    """
    if assignment.kind != Assignment.Kind.CALIBRATION or assignment.attempt_id is None:
        return None
    attempt = (
        CalibrationAttempt.objects.filter(pk=assignment.attempt_id, finished_at__isnull=False)
        .select_related("calibration_set")
        .first()
    )
    if attempt is None:
        return None
    return {
        "passed": bool(attempt.passed),
        "agreed": attempt.agreed,
        "criteria": attempt.criteria,
        "agreement": attempt.agreement,
        "pass_threshold": attempt.calibration_set.pass_threshold,
    }


def certificates_for_expert(*, expert: Expert) -> QuerySet[Certificate]:
    return Certificate.objects.filter(expert=expert).select_related("bar")
