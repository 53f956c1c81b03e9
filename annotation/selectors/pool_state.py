"""The state of a pool's expert records in a few figures, for a cache key that must change
whenever any of them does (``validation.selectors.report.study_report_fingerprint``)."""

from django.db.models import Count, Max, Sum

from annotation.models import CalibrationAttempt, Label, PeerAgreement, Pool, Submission


def pool_state_get(*, pool: Pool) -> dict[str, object]:
    """Counts and newest ids of the pool's submissions, labels, peer-agreement rows, measured
    active times and finished sittings of its calibration set.

    Each is append-only or replaced, never edited in place (a revision replaces a submission's
    labels and raises its version; a sitting is written once, when it finishes), so a count
    with the newest id changes whenever a row is added, replaced or finished.
    """
    submissions = Submission.objects.filter(unit__pool=pool)
    return {
        "submissions": submissions.aggregate(
            n=Count("id"), last=Max("id"), versions=Sum("version")
        ),
        "labels": Label.objects.filter(submission__unit__pool=pool).aggregate(
            n=Count("id"), last=Max("id")
        ),
        "peer_agreement": PeerAgreement.objects.filter(pool=pool).aggregate(
            n=Count("pk"), last=Max("pk")
        ),
        "active_time": submissions.filter(active_seconds__isnull=False).aggregate(
            n=Count("id"), last=Max("id"), seconds=Sum("active_seconds")
        ),
        "calibration_set": pool.calibration_id,
        "calibration": CalibrationAttempt.objects.filter(
            calibration_set_id=pool.calibration_id, finished_at__isnull=False
        ).aggregate(n=Count("id"), last=Max("id")),
    }
