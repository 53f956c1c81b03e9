"""Gathering the raters' quality of one study (validation.report.rater_quality)."""

from annotation.selectors import pool_experts
from annotation.selectors.quality import calibration_latest, peer_agreement_by
from validation.dashboard.time_on_task import study_time_on_task
from validation.models import Study
from validation.report.rater_quality import RaterQuality


def rater_quality_gather(*, study: Study, pseudonyms: tuple[str, ...]) -> tuple[RaterQuality, ...]:
    """Calibration, running peer agreement and time per unit of the study's raters."""
    pool = study.pool
    peer = peer_agreement_by(pool_ids=[pool.pk])
    times = {t.expert.pk: t.figures for t in study_time_on_task(study=study).experts}
    raters = []
    for expert in pool_experts(pool=pool).filter(pseudonym__in=pseudonyms):
        # Only a sitting of the set the study asks for (without one, calibration_latest would
        # give a sitting of any set).
        calibration = (
            calibration_latest(expert=expert, calibration_set=pool.calibration)
            if pool.calibration_id is not None
            else None
        )
        agreement = peer.get((pool.pk, expert.pk))
        figures = times.get(expert.pk)
        raters.append(
            RaterQuality(
                expert=expert.pseudonym,
                calibration_agreement=calibration.agreement if calibration else None,
                calibration_passed=calibration.passed if calibration else None,
                peer_agreement=agreement.share if agreement else None,
                peer_units=agreement.units if agreement else 0,
                measured=figures.measured if figures else 0,
                median_seconds=float(figures.median) if figures else None,
                too_fast=figures.too_fast if figures else 0,
            )
        )
    return tuple(raters)
