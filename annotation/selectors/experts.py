"""What the admin's expert pages read: every expert with their studies and where each stands
with that study's calibration, one expert for the admin, and the expert an invitation link
names (``annotation.services.experts``)."""

from dataclasses import dataclass

from django.contrib.auth.tokens import default_token_generator
from django.db.models import Prefetch, QuerySet
from django.utils.encoding import force_str
from django.utils.http import urlsafe_base64_decode

from annotation.models import CalibrationAttempt, Expert, Pool
from annotation.selectors import quality as selectors_quality
from annotation.selectors.work import CalibrationDue, calibration_work_due

# Where an expert stands with a study's calibration (``calibration_state``).
NOT_REQUIRED = "not_required"  # the study asks for none
PASSED = "passed"  # study work may go ahead
PENDING = "pending"  # never taken: due before the first study unit
RETAKE = "retake"  # taken and failed: to be taken again
REQUIRED_AGAIN = "required_again"  # passed once, then sent back (quality fell, or an admin)

_BY_REASON = {
    selectors_quality.FIRST: PENDING,
    selectors_quality.RETAKE: RETAKE,
    selectors_quality.RECALIBRATION: REQUIRED_AGAIN,
}


@dataclass(frozen=True)
class StudyStanding:
    pool: Pool
    calibration: str | None  # None: the study is closed, calibration no longer matters


@dataclass(frozen=True)
class ExpertRow:
    expert: Expert
    invited: bool  # no password set yet: the invitation link is still to be used
    studies: list[StudyStanding]
    latest_calibration: CalibrationAttempt | None


def calibration_state(*, expert: Expert, pool: Pool) -> str:
    """The expert's calibration in a study's pool, by the claim's own rule
    (``annotation.selectors.work.work_gate``)."""
    if pool.calibration_id is None:
        return NOT_REQUIRED
    due = calibration_work_due(pool=pool, expert=expert)
    if isinstance(due, CalibrationDue):
        return _BY_REASON.get(due.reason, PENDING)
    return PASSED


def _studies_of(expert: Expert) -> list[StudyStanding]:
    return [
        StudyStanding(
            pool=pool,
            calibration=None
            if pool.status == Pool.Status.CLOSED
            else calibration_state(expert=expert, pool=pool),
        )
        for pool in expert.pools.all()
    ]


def _experts():
    # Study pools only: a calibration set's own pool is not a study the expert is enrolled in.
    studies = Pool.objects.filter(calibration_set__isnull=True).select_related("calibration")
    return Expert.objects.select_related("user").prefetch_related(
        Prefetch("pools", queryset=studies.order_by("name"))
    )


def _row(expert: Expert) -> ExpertRow:
    return ExpertRow(
        expert=expert,
        invited=not expert.user.has_usable_password(),
        studies=_studies_of(expert),
        latest_calibration=selectors_quality.calibration_latest(expert=expert),
    )


def experts_for_admin() -> list[ExpertRow]:
    """Every expert, by user name, with their studies and calibration (staff only)."""
    return [_row(expert) for expert in _experts().order_by("user__username")]


def expert_row_for_admin(*, expert_id) -> ExpertRow | None:
    """One expert's row, or None for an id that names none (any text: it comes from a URL)."""
    try:
        pk = int(expert_id)
    except (TypeError, ValueError):
        return None
    expert = _experts().filter(pk=pk).first()
    return None if expert is None else _row(expert)


def invitation_expert_get(*, uidb64: str, token: str) -> Expert | None:
    """The expert an invitation link names while it holds: the uid decodes to an expert's
    login with no password yet and the token is Django's for that login (not used, not
    expired, not replaced by a newer link). None for anything else, forged text included."""
    try:
        pk = int(force_str(urlsafe_base64_decode(uidb64)))
    except (TypeError, ValueError, OverflowError, UnicodeDecodeError):
        return None
    if not 0 < pk < 2**63:  # beyond any row id (and a database integer's range)
        return None
    expert = Expert.objects.select_related("user").filter(user_id=pk).first()
    if expert is None or expert.user.has_usable_password():
        return None
    if not default_token_generator.check_token(expert.user, token):
        return None
    return expert


def demo_experts() -> QuerySet[Expert]:
    """The public demo logins' experts (``Expert.is_demo``)."""
    return Expert.objects.filter(is_demo=True)
