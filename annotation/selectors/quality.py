"""Reads about an expert's standing: running agreement, calibration state and certificates."""

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from itertools import groupby

from django.db.models import Count, QuerySet, Sum

from annotation import quality
from annotation.models import (
    Assignment,
    CalibrationAttempt,
    CalibrationSet,
    Certificate,
    CertificationBar,
    Expert,
    PeerAgreement,
    Pool,
)
from annotation.selectors import rating_labels

FIRST = "first"
RECALIBRATION = "recalibration"
RETAKE = "retake"


@dataclass(frozen=True)
class ExpertQuality:
    peer: quality.Agreement
    calibration: float | None
    quality: float | None


def expert_peer_agreement(
    *, expert: Expert, since: datetime | None = None, closed_only: bool = False
) -> quality.Agreement:
    """Pairwise agreement with the other raters on the expert's most recent completed units
    (at most ``QUALITY_WINDOW``, those submitted since ``since`` when given).

    Sums the rows recorded as each unit completed (``annotation.PeerAgreement``: all the
    pool's raters, at least two, submitted), so no label is read on the claim path.
    ``closed_only`` keeps the units of closed studies: the figure an expert is shown of
    themself, which must not move as the others label a study still open (DESIGN: blindness).
    """
    rows = PeerAgreement.objects.filter(expert=expert)
    if closed_only:
        rows = rows.filter(pool__status=Pool.Status.CLOSED)
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


def peer_agreement_by(*, pool_ids: Iterable[int]) -> dict[tuple[int, int], quality.Agreement]:
    """(pool id, expert id) → pairwise agreement on the pools' completed units, in one query.

    The sums of the rows recorded as each unit completed (one per rating submission): no
    label is read.
    """
    rows = (
        PeerAgreement.objects.filter(pool_id__in=list(pool_ids))
        .values_list("pool_id", "expert_id")
        .annotate(agreed=Sum("agreed"), compared=Sum("compared"), units=Count("pk"))
        .order_by()
    )
    return {
        (pool_id, expert_id): quality.Agreement(agreed=agreed, compared=compared, units=units)
        for pool_id, expert_id, agreed, compared, units in rows
    }


# The one "ability" of a pair's choice, under which its agreement is counted.
PAIR_CHOICE = "pair"


@dataclass(frozen=True)
class RatingAgreement:
    """A rating submission of a completed unit and its agreement per ability of the criteria."""

    pool_id: int
    expert_id: int
    submitted_at: datetime
    abilities: dict[str, quality.Agreement]


def peer_agreement_by_ability(*, pool_ids: Iterable[int]) -> list[RatingAgreement]:
    """Every rating submission of the pools' completed units (those with a recorded row), its
    pairwise agreement split by ability: the rows' rule (``quality.unit_peer_agreements_by``)
    applied to the units' labels; a pair's choice, which has no label, is counted whole under
    ``PAIR_CHOICE``. Two queries: the rows, then the labels."""
    pool_ids = list(pool_ids)
    rated = PeerAgreement.objects.filter(pool_id__in=pool_ids).values_list(
        "submission_id", "pool_id", "expert_id", "submission__submitted_at", "agreed", "compared"
    )
    labels = (
        rating_labels()
        .filter(submission__peer_agreement__pool_id__in=pool_ids)
        .values_list(
            "submission__unit_id", "submission_id", "rubric_item_id", "rubric_item__ability", "hit"
        )
        .order_by("submission__unit_id")
    )
    ability_of: dict[int, str] = {}
    parts: dict[int, dict[str, quality.Agreement]] = {}
    for _unit, unit_labels in groupby(labels, key=lambda label: label[0]):
        votes = []
        for _, submission_id, item_id, ability, hit in unit_labels:
            ability_of[item_id] = ability
            votes.append((submission_id, item_id, hit))
        for (submission_id, ability), agreement in quality.unit_peer_agreements_by(
            votes, group_of=ability_of.__getitem__
        ).items():
            parts.setdefault(submission_id, {})[ability] = agreement
    return [
        RatingAgreement(
            pool_id=pool_id,
            expert_id=expert_id,
            submitted_at=submitted_at,
            abilities=parts.get(submission_id)
            or {PAIR_CHOICE: quality.Agreement(agreed, compared, units=int(compared > 0))},
        )
        for submission_id, pool_id, expert_id, submitted_at, agreed, compared in rated
    ]


def calibration_latest(
    *, expert: Expert, calibration_set: CalibrationSet | None = None
) -> CalibrationAttempt | None:
    """The expert's most recent finished calibration (of one set, or of any)."""
    attempts = CalibrationAttempt.objects.filter(expert=expert, finished_at__isnull=False)
    if calibration_set is not None:
        attempts = attempts.filter(calibration_set=calibration_set)
    return attempts.order_by("-finished_at", "-id").first()


def expert_quality_get(
    *, expert: Expert, since: datetime | None = None, closed_only: bool = False
) -> ExpertQuality:
    """Running quality: peer agreement when it rests on enough units, else calibration
    (``closed_only``: as the expert may see it, ``expert_peer_agreement``)."""
    peer = expert_peer_agreement(expert=expert, since=since, closed_only=closed_only)
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


def certification_bars_not_held(*, expert: Expert) -> QuerySet[CertificationBar]:
    """The active certification bars the expert holds no certificate of."""
    return CertificationBar.objects.filter(is_active=True).exclude(issued__expert=expert)
