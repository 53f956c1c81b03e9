"""The state of a pool's expert records in a few figures, for a cache key that must change
whenever any of them does (``validation.selectors.report.study_report_fingerprint``)."""

from django.db.models import Count, Max, Q, Sum

from annotation.models import CalibrationAttempt, Label, PeerAgreement, Pool, Submission


def pool_state_get(*, pool: Pool) -> dict[str, object]:
    """Counts and newest ids of the pool's submissions (with their measured active seconds),
    labels, peer-agreement rows and finished sittings of its calibration set (in four queries).

    Each is append-only or replaced, never edited in place (a revision replaces a submission's
    labels and raises its version; a sitting is written once, when it finishes), so a count
    with the newest id changes whenever a row is added, replaced or finished.
    """
    return {
        # The active seconds the workbench sent come with each submission: how many were
        # measured and their sum.
        "submissions": Submission.objects.filter(unit__pool=pool).aggregate(
            n=Count("id"),
            last=Max("id"),
            versions=Sum("version"),
            measured=Count("id", filter=Q(active_seconds__isnull=False)),
            seconds=Sum("active_seconds"),
        ),
        "labels": Label.objects.filter(submission__unit__pool=pool).aggregate(
            n=Count("id"), last=Max("id")
        ),
        "peer_agreement": PeerAgreement.objects.filter(pool=pool).aggregate(
            n=Count("pk"), last=Max("pk")
        ),
        "calibration_set": pool.calibration_id,
        "calibration": CalibrationAttempt.objects.filter(
            calibration_set_id=pool.calibration_id, finished_at__isnull=False
        ).aggregate(n=Count("id"), last=Max("id")),
    }
