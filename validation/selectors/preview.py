"""What a draft study asks of its experts before it opens: its units per stratum, the ratings
and criterion judgements they make, and what they cost at the study's pay rates."""

from dataclasses import dataclass
from decimal import Decimal

from django.db.models import Count

from annotation import selectors as annotation_selectors
from annotation.selectors.pay import pool_pay_rates
from validation.models import Study


@dataclass(frozen=True)
class Stratum:
    label: str
    cases: int
    units: int


@dataclass(frozen=True)
class Preview:
    strata: list[Stratum]
    cases: int
    units: int
    raters: int  # per unit
    ratings: int  # units × raters
    judgements: int  # criteria × raters: what the experts mark (0 for a pairwise study)
    pairwise: bool  # the units are pairs: each rating is one choice
    pay: list[tuple[str, Decimal, str]]  # (tier, the expert tier's pay for every rating, currency)
    enrolled: int


def study_preview(*, study: Study) -> Preview:
    """The draft's sample as the experts will meet it."""
    raters = study.pool.raters_per_unit
    rows = (
        study.units.values("stratum")
        .annotate(units=Count("pk"), cases=Count("case", distinct=True))
        .order_by("stratum")
    )
    strata = [Stratum(label=r["stratum"], cases=r["cases"], units=r["units"]) for r in rows]
    units = sum(s.units for s in strata)
    criteria = 0 if study.is_pairwise else study.units.aggregate(n=Count("case__rubric"))["n"]
    rates = pool_pay_rates(pool=study.pool)
    return Preview(
        strata=strata,
        cases=sum(s.cases for s in strata),  # a case is in one stratum
        units=units,
        raters=raters,
        ratings=units * raters,
        judgements=criteria * raters,
        pairwise=study.is_pairwise,
        pay=[(rate.tier, rate.amount * units * raters, rate.currency) for rate in rates],
        enrolled=annotation_selectors.pool_experts(pool=study.pool).count(),
    )
