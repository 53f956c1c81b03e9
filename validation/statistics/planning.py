"""How many cases a study needs for the interval it wants (pure: no database).

The study's headline figure is the judge's agreement with the gold, p, over items (criterion ×
model response) with a case-clustered 95 % interval. Items of one case disagree together, so
n items carry the information of n / DE independent ones, with the design effect

    DE = 1 + ((1 + cv²) · m̄ − 1) · ICC

(Kish; the cv² term for unequal case sizes is Eldridge, Ashby & Kerry 2006, and gives
1 + (m − 1) · ICC when every case holds m items). m̄ and cv are the mean and coefficient of
variation of items per case — criteria × chosen models — over the dataset, and ICC is the
intra-case correlation of the judge–gold disagreement indicator, estimated from a pilot
study (ANOVA estimator, Donner 1986) or ``DEFAULT_ICC``.

The plain sample size z² p (1 − p) DE / h² gives the half-width h only on average: about
half the studies of that size come out wider. A planned study should reach h with
``ASSURANCE`` (90 %), so the planner sizes for the 90th percentile of the half-width
(Kupper & Hafner 1989): the case-level variance is estimated from k cases, and its
estimate's 90th percentile is about χ²_{0.9, k−1} / (k − 1) times its mean; the agreement
itself is taken one-sided ``ASSURANCE`` quantile closer to ½ (where p (1 − p) is larger).
``benchmarks/sequential_simulation.py`` checks the assurance by simulation.
"""

import math
from collections.abc import Hashable, Sequence
from dataclasses import asdict, dataclass

import numpy as np

from validation.statistics.lazy_scipy import stats

# Judge–gold disagreements cluster in cases (a hard dialogue, a long reply), but the case
# explains a modest share of them: in cluster-randomised studies the ICC of binary outcomes is
# rarely above 0.1 (Eldridge, Ashby & Kerry 2006; Adams et al. 2004), and 0.1 with ~25 items
# per case already more than triples the sample. A pilot study replaces it.
DEFAULT_ICC = 0.10
DEFAULT_AGREEMENT = 0.85  # about the 87 % the HeartBench authors report for their judge
DEFAULT_HALF_WIDTH = 0.03
ASSURANCE = 0.90
LEVEL = 0.95

ICC_DEFAULT = "default"
ICC_PILOT = "pilot"


class PlanningError(ValueError):
    """A planning request that cannot be answered; the message says why."""


def icc_binary(*, values: Sequence[int], clusters: Sequence[Hashable]) -> float | None:
    """ANOVA estimate of the intra-cluster correlation of a 0/1 indicator, truncated at 0.

    None when it is undefined: fewer than two clusters, one item per cluster, or no
    variation at all (every item agrees, or every one disagrees).
    """
    y = np.asarray(values, dtype=float)
    _, index = np.unique([str(c) for c in clusters], return_inverse=True)
    sizes = np.bincount(index).astype(float)
    totals = np.bincount(index, weights=y)
    k, n = sizes.size, y.size
    if k < 2 or n <= k:
        return None
    between = (np.sum(totals**2 / sizes) - totals.sum() ** 2 / n) / (k - 1)
    within = (totals.sum() - np.sum(totals**2 / sizes)) / (n - k)
    m0 = (n - np.sum(sizes**2) / n) / (k - 1)
    denominator = between + (m0 - 1) * within
    if denominator <= 0:
        return None
    return max(0.0, float((between - within) / denominator))


def disagreement_icc(
    *, gold: np.ndarray, judges: Sequence[np.ndarray], clusters: np.ndarray, missing: int
) -> float | None:
    """The ICC of judge–gold disagreement within cases from a pilot study: the largest over
    its judges (the most clustered judge needs the most cases), over items where both the
    gold and the judge have a label; None when no judge gives an estimate."""
    estimates = []
    for codes in judges:
        both = (gold != missing) & (codes != missing)
        disagree = (codes[both] != gold[both]).astype(int)
        estimate = icc_binary(values=disagree, clusters=clusters[both])
        if estimate is not None:
            estimates.append(estimate)
    return max(estimates, default=None)


def design_effect(*, icc: float, sizes: Sequence[int]) -> float:
    """1 + ((1 + cv²) m̄ − 1) ICC for clusters of the given sizes."""
    m = np.asarray(sizes, dtype=float)
    if m.size == 0 or (m <= 0).any():
        raise PlanningError("every case needs at least one item")
    if not 0 <= icc <= 1:
        raise PlanningError(f"the ICC must be in [0, 1], got {icc}")
    cv2 = float(m.var() / m.mean() ** 2)
    return 1 + ((1 + cv2) * float(m.mean()) - 1) * icc


@dataclass(frozen=True)
class Plan:
    cases: int  # cases to sample
    available: int  # cases in the dataset
    fraction: float  # cases / available, at most 1
    reachable: bool  # the dataset has enough cases for the wanted half-width
    expected_agreement: float
    half_width: float
    items_per_case: float  # mean items (criteria × models) per case
    icc: float
    icc_source: str  # ICC_PILOT or ICC_DEFAULT
    design_effect: float
    assurance: float
    # The half-width expected with the planned cases on average (the plain formula's).
    expected_half_width: float

    def as_dict(self) -> dict:
        return asdict(self)


def _half_width(*, p: float, design: float, items: float, level: float) -> float:
    z = float(stats.norm.isf((1 - level) / 2))
    return z * math.sqrt(p * (1 - p) * design / items)


def plan_cases(
    *,
    items_per_case: Sequence[int],
    expected_agreement: float = DEFAULT_AGREEMENT,
    half_width: float = DEFAULT_HALF_WIDTH,
    icc: float | None = None,
    assurance: float = ASSURANCE,
    level: float = LEVEL,
) -> Plan:
    """The fewest cases whose interval of agreement has at most ``half_width`` with
    probability ``assurance``. ``items_per_case`` lists every case of the dataset (criteria ×
    models); ``icc`` None takes ``DEFAULT_ICC``."""
    if not 0 < expected_agreement < 1:
        raise PlanningError(f"the expected agreement must be in (0, 1), got {expected_agreement}")
    if not 0 < half_width < 0.5:
        raise PlanningError(f"the half-width must be in (0, 0.5), got {half_width}")
    if not 0.5 <= assurance < 1:
        raise PlanningError(f"the assurance must be in [0.5, 1), got {assurance}")
    source = ICC_DEFAULT if icc is None else ICC_PILOT
    icc = DEFAULT_ICC if icc is None else icc
    design = design_effect(icc=icc, sizes=items_per_case)
    mean_items = float(np.mean(items_per_case))
    available = len(items_per_case)
    p = expected_agreement
    quantile = float(stats.norm.ppf(assurance))
    z = float(stats.norm.isf((1 - level) / 2))

    def assured(cases: int) -> float:
        """The half-width at the ``assurance`` percentile for ``cases`` cases."""
        items = cases * mean_items
        shift = quantile * _half_width(p=p, design=design, items=items, level=level) / z
        # The agreement's assurance quantile towards ½, where the interval is widest.
        towards = min(0.5, p + shift) if p < 0.5 else max(0.5, p - shift)
        spread = stats.chi2.ppf(assurance, cases - 1) / (cases - 1)
        return _half_width(p=towards, design=design * spread, items=items, level=level)

    low, high = 2, 2
    while assured(high) > half_width:
        low, high = high, high * 2
    while low < high:  # the fewest cases: assured() falls as cases grow
        middle = (low + high) // 2
        low, high = (low, middle) if assured(middle) <= half_width else (middle + 1, high)
    cases = high
    return Plan(
        cases=cases,
        available=available,
        fraction=min(1.0, cases / available),
        reachable=cases <= available,
        expected_agreement=p,
        half_width=half_width,
        items_per_case=mean_items,
        icc=icc,
        icc_source=source,
        design_effect=design,
        assurance=assurance,
        expected_half_width=_half_width(
            p=p, design=design, items=min(cases, available) * mean_items, level=level
        ),
    )
