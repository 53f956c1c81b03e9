"""Risk-alert rules of the admin dashboard (pure: plain numbers in, verdicts out; no ORM).

Each rule answers one question an admin running a study asks, from counts the selectors
aggregate in the database. They are kept here so they can be tested with hand-made numbers.
"""

import math
import statistics
from collections.abc import Hashable, Mapping
from dataclasses import dataclass
from datetime import date, timedelta

# An expert is "far below the others" under median − K·MAD of the experts' agreement.
MAD_K = 3.0
# MAD scaled by this estimates the standard deviation for normal data (1 / Φ⁻¹(3/4)).
MAD_SCALE = 1.4826
# When the experts agree almost exactly with one another the MAD is ~0 and any expert a hair
# below the median would be "far below": the spread is never taken as smaller than this.
MIN_SPREAD = 0.02
# The robust rule needs a crowd to compare with; with fewer experts only the floor applies.
MIN_PEERS = 3
# A unit whose lease expired this often is not being finished by whoever picks it up.
EXPIRED_LEASES_ALERT = 3
# A judge run with more than this share of error verdicts needs a look.
RUN_ERROR_SHARE = 0.05
# ... once it has judged enough criteria for the share to mean something.
RUN_ERROR_MIN_DONE = 20
# Pace is measured over this many recent days.
PACE_DAYS = 7
# A rating is "too fast" under this share of the study's median active time per unit ...
TOO_FAST_SHARE = 0.25
# ... once the study has this many measured ratings for its median to mean something.
TOO_FAST_MIN_MEASURED = 10


@dataclass(frozen=True)
class Outlier:
    key: Hashable
    value: float
    # "robust": below median − K·MAD; "floor": below the study's minimum quality.
    reasons: tuple[str, ...]
    threshold: float | None


def robust_floor(values: list[float], *, k: float = MAD_K) -> float | None:
    """median − k·(scaled MAD, at least MIN_SPREAD), or None with fewer than MIN_PEERS values."""
    if len(values) < MIN_PEERS:
        return None
    middle = statistics.median(values)
    mad = statistics.median(abs(v - middle) for v in values) * MAD_SCALE
    return middle - k * max(mad, MIN_SPREAD)


def weak_experts(
    qualities: Mapping[Hashable, float], *, min_quality: float | None = None, k: float = MAD_K
) -> list[Outlier]:
    """Experts far below the others (robust rule) or below the study's floor, worst first.

    ``qualities`` holds only experts whose figure rests on enough units (the caller applies
    ``annotation.quality.QUALITY_MIN_UNITS``).
    """
    floor = robust_floor(list(qualities.values()), k=k)
    found = []
    for key, value in qualities.items():
        reasons = []
        if floor is not None and value < floor:
            reasons.append("robust")
        if min_quality is not None and value < min_quality:
            reasons.append("floor")
        if reasons:
            found.append(Outlier(key=key, value=value, reasons=tuple(reasons), threshold=floor))
    return sorted(found, key=lambda o: (o.value, str(o.key)))


def expiring_units(
    expired: Mapping[Hashable, int], *, threshold: int = EXPIRED_LEASES_ALERT
) -> list[tuple[Hashable, int]]:
    """Units whose leases expired at least ``threshold`` times, most expired first."""
    hits = [(unit, n) for unit, n in expired.items() if n >= threshold]
    return sorted(hits, key=lambda pair: (-pair[1], str(pair[0])))


@dataclass(frozen=True)
class Pace:
    remaining: int  # rating submissions still needed
    per_day: float  # rating submissions per day over the recent window
    finish: date | None  # at this pace; None when nothing moves and work remains
    due: date | None
    will_miss: bool
    days_left: int | None  # days until the due date (None without one, 0 once past it)

    @property
    def per_day_needed(self) -> float | None:
        """The pace that would still finish by the due date (None without a date or time)."""
        if self.due is None or not self.days_left:
            return None
        return self.remaining / self.days_left


def pace_forecast(
    *, remaining: int, recent_submissions: int, today: date, due: date | None, days: int = PACE_DAYS
) -> Pace:
    """When the work left is done at the recent pace, and whether that misses the due date.

    A study with work left and no submissions in the window never finishes at this pace, so
    it misses any due date. A study with no due date never "misses" it.
    """
    remaining = max(remaining, 0)
    per_day = recent_submissions / days if days > 0 else 0.0
    if remaining == 0:
        finish: date | None = today
    elif per_day <= 0:
        finish = None
    else:
        finish = today + timedelta(days=math.ceil(remaining / per_day))
    will_miss = due is not None and remaining > 0 and (finish is None or finish > due)
    days_left = None if due is None else max((due - today).days, 0)
    return Pace(
        remaining=remaining,
        per_day=per_day,
        finish=finish,
        due=due,
        will_miss=will_miss,
        days_left=days_left,
    )


@dataclass(frozen=True)
class RunErrors:
    share: float
    alert: bool


def run_error_share(
    *, done: int, errors: int, limit: float = RUN_ERROR_SHARE, min_done: int = RUN_ERROR_MIN_DONE
) -> RunErrors:
    """Share of a run's verdicts that are errors; alert above ``limit`` once enough are in."""
    share = errors / done if done else 0.0
    return RunErrors(share=share, alert=done >= min_done and share > limit)


def week_start(day: date) -> date:
    """The Monday of ``day``'s week: the dashboard's rolling agreement is bucketed by week."""
    return day - timedelta(days=day.weekday())


def too_fast_threshold(
    seconds: list[int],
    *,
    share: float = TOO_FAST_SHARE,
    min_measured: int = TOO_FAST_MIN_MEASURED,
) -> float | None:
    """Active seconds under which a rating was too fast to be careful; None with too few.

    The threshold is a share of the study's median active time per unit, not a fixed number
    of seconds: a study's units come from one dataset and are alike in length (dialogue,
    response, 4-23 criteria), so the median tells what careful reading of this study takes
    without per-study tuning, and it is robust to the fast outliers it is meant to catch.
    A rating at a quarter of it was done four times faster than usual, which reading the
    dialogue, the response and every criterion does not allow. With fewer than
    ``min_measured`` measured ratings the median is noise and nothing is flagged.
    """
    if len(seconds) < min_measured:
        return None
    return statistics.median(seconds) * share


@dataclass(frozen=True)
class TimeFigures:
    measured: int
    median: float
    p10: float
    too_fast: int


def time_figures(seconds: list[int], *, threshold: float | None) -> TimeFigures:
    """One expert's measured ratings: count, median, 10th percentile (linear interpolation
    between closest ranks), and how many fall under the too-fast ``threshold``."""
    if not seconds:
        raise ValueError("no measured ratings")
    ordered = sorted(seconds)
    if len(ordered) == 1:
        p10 = float(ordered[0])
    else:
        p10 = statistics.quantiles(ordered, n=10, method="inclusive")[0]
    fast = 0 if threshold is None else sum(1 for s in ordered if s < threshold)
    return TimeFigures(
        measured=len(ordered), median=statistics.median(ordered), p10=p10, too_fast=fast
    )
