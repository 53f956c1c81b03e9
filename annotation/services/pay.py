"""The pay ledger: rates, one earning per accepted submission, and corrections."""

from decimal import Decimal

from django.db import transaction
from django.db.models import Sum

from annotation.audit_actions import AnnotationAction
from annotation.models import Expert, PayEntry, PayRate, Pool, Submission
from annotation.services.errors import AnnotationError
from benchmark.services.audit import audit_record
from config.locks import row_lock

MAX_AMOUNT = Decimal("99999999.99")


def _currency(code: str) -> str:
    code = code.strip().upper()
    if len(code) != 3 or not code.isalpha():
        raise AnnotationError(f"currency must be a three-letter code like CNY or USD, got {code!r}")
    return code


def pay_rate_set(*, pool: Pool, tier: str, amount: Decimal, currency: str, actor=None) -> PayRate:
    """Set the rate per completed unit for one tier in one pool; later units earn it."""
    if tier not in Expert.Tier.values:
        raise AnnotationError(f"tier must be one of {', '.join(Expert.Tier.values)}")
    amount = Decimal(amount)
    if not (Decimal(0) <= amount <= MAX_AMOUNT) or amount != amount.quantize(Decimal("0.01")):
        raise AnnotationError(f"a rate is a non-negative amount with at most 2 decimals: {amount}")
    currency = _currency(currency)
    with transaction.atomic():
        previous = PayRate.objects.select_for_update().filter(pool=pool, tier=tier).first()
        rate, _ = PayRate.objects.update_or_create(
            pool=pool, tier=tier, defaults={"amount": amount, "currency": currency}
        )
        audit_record(
            actor=actor,
            action=AnnotationAction.PAY_RATE_SET,
            obj=rate,
            data={
                "pool": pool.pk,
                "tier": tier,
                "from": None if previous is None else f"{previous.amount} {previous.currency}",
                "to": f"{amount} {currency}",
            },
        )
    return rate


def pay_record_earning(
    *, submission: Submission, pool: Pool, expert: Expert, amount: Decimal | None, currency: str
) -> PayEntry | None:
    """The earning for a newly accepted submission at the rate read with its assignment
    (``annotation.selectors.pay.pay_rate_annotations``), in the caller's (the submission's)
    transaction; None when the pool pays nothing for the expert's tier (``amount`` None)."""
    if amount is None:
        return None
    entry = PayEntry.objects.create(
        expert=expert,
        pool=pool,
        kind=PayEntry.Kind.EARNING,
        submission=submission,
        amount=amount,
        currency=currency,
    )
    audit_record(
        actor=expert.user,
        action=AnnotationAction.PAY_EARNING,
        obj=entry,
        data={"submission": submission.pk, "amount": str(amount), "currency": currency},
    )
    return entry


def pay_correct(*, entry: PayEntry, reason: str, actor, amount: Decimal | None = None) -> PayEntry:
    """Take back all (default) or part of an earning with a new negative entry."""
    if not reason.strip():
        raise AnnotationError("a correction needs a reason")
    with transaction.atomic():
        entry = row_lock(PayEntry, entry.pk)
        if entry.kind != PayEntry.Kind.EARNING:
            raise AnnotationError("only an earning can be corrected; correct the earning itself")
        already = entry.corrections.aggregate(total=Sum("amount"))["total"] or Decimal(0)
        amount = -(entry.amount + already) if amount is None else Decimal(amount)
        if amount >= 0 or entry.amount + already + amount < 0:
            raise AnnotationError(
                f"a correction is negative and at most what is left of the earning "
                f"({entry.amount + already} {entry.currency})"
            )
        correction = PayEntry.objects.create(
            expert_id=entry.expert_id,
            pool_id=entry.pool_id,
            kind=PayEntry.Kind.CORRECTION,
            corrects=entry,
            amount=amount,
            currency=entry.currency,
            reason=reason.strip()[:300],
            created_by=actor,
        )
        audit_record(
            actor=actor,
            action=AnnotationAction.PAY_CORRECTION,
            obj=correction,
            data={"corrects": entry.pk, "amount": str(amount), "reason": correction.reason},
        )
    return correction
