"""Reads of the pay ledger: earnings per expert, study and currency over a period."""

from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from decimal import Decimal

from django.db.models import Count, OuterRef, Q, QuerySet, Subquery, Sum
from django.utils import timezone

from annotation.models import PayEntry, PayRate

CENT = Decimal("0.01")


def pay_rate_annotations() -> dict[str, Subquery]:
    """The rate an assignment's submission earns, as annotations of an ``Assignment`` query:
    ``pay_amount`` and ``pay_currency`` (None when the pool pays nothing for the expert's
    tier). The submit reads them with the assignment, in the same query."""
    rate = PayRate.objects.filter(pool=OuterRef("pool_id"), tier=OuterRef("expert__tier"))
    return {
        "pay_amount": Subquery(rate.order_by().values("amount")[:1]),
        "pay_currency": Subquery(rate.order_by().values("currency")[:1]),
    }


@dataclass(frozen=True)
class Earnings:
    rater: str
    username: str
    display_name: str
    tier: str
    study: str
    currency: str
    units: int
    earned: Decimal
    corrections: Decimal
    # Active time on task of the paid units: how many carry a figure (an API client that does
    # not measure leaves it out) and their seconds in all.
    timed_units: int = 0
    active_seconds: int = 0

    @property
    def total(self) -> Decimal:
        return self.earned + self.corrections


def _cents(value) -> Decimal:
    # SQLite sums decimals as floats; every backend gives the same two-decimal figure.
    return Decimal(str(value)).quantize(CENT)


def _start_of(day: date) -> datetime:
    return timezone.make_aware(datetime.combine(day, time.min))


def pay_earnings(*, start: date, end: date) -> list[Earnings]:
    """Ledger totals for entries written on the days start..end (inclusive, local time).

    A correction counts in the period it was written, so a closed period's export never
    changes afterwards.
    """
    earning = Q(kind=PayEntry.Kind.EARNING)
    rows = (
        PayEntry.objects.filter(
            created_at__gte=_start_of(start), created_at__lt=_start_of(end + timedelta(days=1))
        )
        .values(
            "expert__pseudonym",
            "expert__user__username",
            "expert__display_name",
            "expert__tier",
            "pool__name",
            "currency",
        )
        .annotate(
            units=Count("pk", filter=Q(kind=PayEntry.Kind.EARNING)),
            earned=Sum("amount", filter=Q(kind=PayEntry.Kind.EARNING), default=Decimal(0)),
            corrections=Sum("amount", filter=Q(kind=PayEntry.Kind.CORRECTION), default=Decimal(0)),
            timed_units=Count("pk", filter=earning & Q(submission__active_seconds__isnull=False)),
            active_seconds=Sum("submission__active_seconds", filter=earning, default=0),
        )
        .order_by("expert__user__username", "pool__name", "currency")
    )
    return [
        Earnings(
            rater=r["expert__pseudonym"],
            username=r["expert__user__username"],
            display_name=r["expert__display_name"],
            tier=r["expert__tier"],
            study=r["pool__name"],
            currency=r["currency"],
            units=r["units"],
            earned=_cents(r["earned"]),
            corrections=_cents(r["corrections"]),
            timed_units=r["timed_units"],
            active_seconds=r["active_seconds"],
        )
        for r in rows
    ]


def pool_pay_rates(*, pool) -> QuerySet[PayRate]:
    """The pool's pay per unit rated, one per tier that has one."""
    return PayRate.objects.filter(pool=pool).order_by("tier")
