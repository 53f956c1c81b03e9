"""Certificates: issued to an expert who meets a bar an admin set."""

from django.db import IntegrityError, transaction

from annotation import quality
from annotation.audit_actions import AnnotationAction
from annotation.models import CalibrationAttempt, Certificate, CertificationBar, Expert
from annotation.selectors import quality as selectors_quality
from annotation.services.errors import AnnotationError
from benchmark.services.audit import audit_record


def certificate_shortfall(
    *, expert: Expert, bar: CertificationBar, closed_only: bool = False
) -> list[str]:
    """What the expert still lacks for the bar (empty when they meet it); ``closed_only``
    for the expert's own page (``expert_peer_agreement``)."""
    standing = selectors_quality.expert_quality_get(expert=expert, closed_only=closed_only)
    calibrated = (
        bar.calibration_id is None
        or CalibrationAttempt.objects.filter(
            expert=expert, calibration_set_id=bar.calibration_id, passed=True
        ).exists()
    )
    return quality.meets_certification(
        quality=standing.peer.share,
        units=standing.peer.units,
        min_quality=bar.min_quality,
        min_units=bar.min_units,
        calibrated=calibrated,
    )


def certificate_issue(*, expert: Expert, bar: CertificationBar, actor=None) -> Certificate:
    """Issue the bar's certificate to the expert, or say what is missing."""
    if not bar.is_active:
        raise AnnotationError(f"the bar {bar} is not active")
    missing = certificate_shortfall(expert=expert, bar=bar)
    if missing:
        raise AnnotationError(f"{expert} does not meet {bar} yet: " + "; ".join(missing))
    standing = selectors_quality.expert_quality_get(expert=expert)
    try:
        with transaction.atomic():
            certificate = Certificate.objects.create(
                expert=expert, bar=bar, quality=standing.peer.share, units=standing.peer.units
            )
            audit_record(
                actor=actor,
                action=AnnotationAction.CERTIFICATE_ISSUE,
                obj=certificate,
                data={"expert": expert.pk, "bar": bar.pk, "quality": certificate.quality},
            )
    except IntegrityError as exc:
        raise AnnotationError(f"{expert} already holds the {bar} certificate") from exc
    return certificate


def certificate_issue_all(*, bar: CertificationBar, actor=None) -> list[Certificate]:
    """Issue the bar's certificate to every active expert who meets it and lacks it."""
    issued = []
    holders = Certificate.objects.filter(bar=bar).values("expert_id")
    for expert in Expert.objects.filter(is_active=True).exclude(pk__in=holders):
        if not certificate_shortfall(expert=expert, bar=bar):
            issued.append(certificate_issue(expert=expert, bar=bar, actor=actor))
    return issued
