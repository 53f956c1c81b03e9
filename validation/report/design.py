"""Which interval decides a closed study's gate (pure): the final boundary of the sequential
design it ran, or the plain 95 % interval of a study without one.

A study that looked at its gate every k completed cases (``look_every``) spent its α over those
looks (``validation.statistics.sequential``); deciding its close at a plain 95 % interval would
spend more than α overall (``benchmarks/sequential_error.py``: 5.6–5.9 % instead of 5 %). Its
close is the design's final look (``close_look``: the looks taken before it, then the close at
the information of its complete cases), decided at that look's critical value c.

The dashboard's looks decide on value ± c · SE; here c is applied to the bootstrap itself: the
same resamples, each interval (BCa, or a proportion's exact bound where it is the wider) at the
two-sided level 1 − 2 (1 − Φ(c)), so a skewed interval keeps its skew (c = 2.014 → 95.6 %).
The report's figures stay at 95 %; only the gate's conditions carry the design's intervals.

A study without a design, or one still open (its looks are the dashboard's), is decided as
before, at 95 %.
"""

import numpy as np

from validation.report.data import StudyData
from validation.report.decided import DESIGN, FIXED
from validation.statistics import MISSING
from validation.statistics.sequential import ALPHA, CloseLook, close_look

SPENDING = "obrien_fleming"  # Lan–DeMets, O'Brien–Fleming-type: the only one the monitor uses


def complete_cases(data: StudyData) -> int:
    """Cases every item of which has its gold (dropped units hold no items): the dashboard's
    completed cases, counted on the report's own arrays."""
    counts = np.bincount(data.case, minlength=data.n_cases)
    missing = np.bincount(data.case[data.gold == MISSING], minlength=data.n_cases)
    return int(((counts > 0) & (missing == 0)).sum())


def study_close_look(data: StudyData) -> CloseLook | None:
    """The final look of a closed, sequentially monitored study; None when the study has no
    design, is still open, or has no complete case."""
    study = data.study
    every, planned = study.get("look_every"), study.get("planned_cases")
    if not every or not planned or not study.get("closed_at"):
        return None
    return close_look(completed=complete_cases(data), planned=planned, every=every)


def decided_at(look: CloseLook | None, *, level: float, fixed: str | None = None) -> dict:
    """The report's ``gate.decided_at``: the interval the gate was decided on, and for a
    sequential design its looks, boundary and what the plain 95 % rule would have said."""
    if look is None:
        return {"interval": FIXED, "level": level, "design": None}
    return {
        "interval": DESIGN,
        "level": look.level,
        "critical": look.final_critical,
        "design": {
            "spending": SPENDING,
            "alpha": ALPHA,
            "planned_cases": look.planned,
            "look_every": look.every,
            "complete_cases": look.completed,
            "look": look.look,
            "planned_looks": look.planned_looks,
            "stopped_early": look.stopped_early,
            "looks": [
                {"look": i, "cases": round(t * look.planned), "fraction": t, "critical": c}
                for i, (t, c) in enumerate(zip(look.fractions, look.critical, strict=True), 1)
            ],
        },
        # The decision a plain 95 % interval would have given: shown, never used.
        "fixed_decision": fixed,
    }
