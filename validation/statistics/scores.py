"""Agreement of two raters' scores on the same subjects (pure): ICC(2,1), Bland–Altman, and
Kendall's τ-b vectorised over bootstrap resamples.

In the study report a subject is a case (question × model): its case score from the gold
labels against its case score from the judge's. The cases of one question are not independent:
the report's intervals resample questions (``validation.statistics.score_bootstrap``).
"""

import math
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

# 97.5 % point of the standard normal: limits of agreement at mean ± 1.96 SD (Bland & Altman).
Z_975 = 1.959963984540054


@dataclass(frozen=True)
class Icc:
    n: int
    value: float | None
    low: float | None
    high: float | None
    reason: str | None = None

    def as_dict(self) -> dict[str, Any]:
        """The F interval under its own key and name: it treats the n subjects as independent,
        which question × model case scores are not (the report's ``ci95`` resamples questions:
        ``validation.statistics.score_bootstrap``)."""
        return {
            "n": self.n,
            "value": self.value,
            "reason": self.reason,
            "form": "ICC(2,1): two-way random, absolute agreement, single",
            "f_interval": {
                "low": self.low,
                "high": self.high,
                "method": "McGraw-Wong F",
                "assumes": "independent subjects",
            },
        }


def icc_2_1(*, scores: ArrayLike, level: float = 0.95) -> Icc:
    """ICC(2,1) of Shrout & Fleiss (1979) — McGraw & Wong's (1996) ICC(A,1) — of ``scores``
    (n subjects × k raters, no missing value), with McGraw & Wong's F-based interval."""
    x = np.asarray(scores, dtype=float)
    n, k = x.shape
    if n < 2 or k < 2:
        return Icc(n=n, value=None, low=None, high=None, reason=f"{n} subject(s), {k} rater(s)")
    grand = x.mean()
    ss_rows = k * ((x.mean(axis=1) - grand) ** 2).sum()
    ss_cols = n * ((x.mean(axis=0) - grand) ** 2).sum()
    ss_error = ((x - grand) ** 2).sum() - ss_rows - ss_cols
    msr, msc = ss_rows / (n - 1), ss_cols / (k - 1)
    mse = ss_error / ((n - 1) * (k - 1))
    denominator = msr + (k - 1) * mse + k * (msc - mse) / n
    if denominator <= 0:
        return Icc(n=n, value=None, low=None, high=None, reason="no variance between subjects")
    icc = (msr - mse) / denominator
    if np.isclose(mse, 0) and np.isclose(msc, 0):
        # Both raters gave every subject the same score: the interval's df are undefined.
        return Icc(n=n, value=float(icc), low=None, high=None, reason="perfect agreement")
    from scipy.special import fdtri  # deferred; scipy.stats.f.ppf is this, without the stats

    alpha = 1 - level
    a = k * icc / (n * (1 - icc))
    b = 1 + k * icc * (n - 1) / (n * (1 - icc))
    spread_df = (a * msc) ** 2 / (k - 1) + (b * mse) ** 2 / ((n - 1) * (k - 1))
    if spread_df <= 0:  # e.g. no column effect and a zero-width error term at a negative ICC
        return Icc(n=n, value=float(icc), low=None, high=None, reason="interval undefined")
    v = (a * msc + b * mse) ** 2 / spread_df
    f_low = fdtri(n - 1, v, 1 - alpha / 2)
    f_high = fdtri(v, n - 1, 1 - alpha / 2)
    spread = k * msc + (k * n - k - n) * mse
    low = n * (msr - f_low * mse) / (f_low * spread + n * msr)
    high = n * (f_high * msr - mse) / (spread + n * f_high * msr)
    return Icc(n=n, value=float(icc), low=float(low), high=float(high))


@dataclass(frozen=True)
class BlandAltman:
    n: int
    mean_difference: float | None  # of ``second − first``
    sd: float | None
    lower_limit: float | None  # mean − 1.96 SD
    upper_limit: float | None  # mean + 1.96 SD
    reason: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def bland_altman(*, first: ArrayLike, second: ArrayLike) -> BlandAltman:
    """Mean difference ``second − first`` and its 95 % limits of agreement (SD with n − 1)."""
    difference = np.asarray(second, dtype=float) - np.asarray(first, dtype=float)
    n = difference.size
    if n < 2:
        return BlandAltman(n, None, None, None, None, f"{n} subject(s): limits need two")
    mean, sd = float(difference.mean()), float(difference.std(ddof=1))
    return BlandAltman(n, mean, sd, mean - Z_975 * sd, mean + Z_975 * sd)


def kendall_tau_b(first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """Kendall's τ-b along the last axis (…, m) of two arrays of scores; NaN where one side has
    every value tied. Vectorised, so that thousands of bootstrap resamples cost one call."""
    i, j = np.triu_indices(first.shape[-1], k=1)
    a = np.sign(first[..., i] - first[..., j])
    b = np.sign(second[..., i] - second[..., j])
    concordance = (a * b).sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return concordance / np.sqrt((a != 0).sum(axis=-1) * (b != 0).sum(axis=-1))


@dataclass(frozen=True)
class KendallTau:
    statistic: float  # NaN where one side has every value tied
    p_value: float


def kendall_tau_test(first: ArrayLike, second: ArrayLike) -> KendallTau:
    """Kendall's τ-b of two score lists and its two-sided p-value, as
    ``scipy.stats.kendalltau`` gives them (its 'auto' method: the exact null distribution
    without ties and up to 33 values, else the normal approximation with the tie-corrected
    variance), counting the pairs directly — a leaderboard has tens of models, not thousands —
    so that the report does not import ``scipy.stats``."""
    x, y = np.asarray(first, dtype=float).ravel(), np.asarray(second, dtype=float).ravel()
    size = x.size
    if size < 2 or np.isnan(x).any() or np.isnan(y).any():
        return KendallTau(np.nan, np.nan)
    i, j = np.triu_indices(size, k=1)
    dx, dy = np.sign(x[i] - x[j]), np.sign(y[i] - y[j])
    tot = size * (size - 1) // 2
    xtie, ytie = int((dx == 0).sum()), int((dy == 0).sum())
    if xtie == tot or ytie == tot:
        return KendallTau(np.nan, np.nan)
    ntie, dis = int(((dx == 0) & (dy == 0)).sum()), int((dx * dy < 0).sum())
    con_minus_dis = tot - xtie - ytie + ntie - 2 * dis
    tau = min(1.0, max(-1.0, con_minus_dis / np.sqrt(tot - xtie) / np.sqrt(tot - ytie)))
    if xtie == 0 and ytie == 0 and (size <= 33 or min(dis, tot - dis) <= 1):
        return KendallTau(float(tau), _kendall_p_exact(size, tot - dis))
    from scipy.special import ndtr  # deferred: only an interval or a p-value needs it

    x0, x1 = _tie_sums(x)
    y0, y1 = _tie_sums(y)
    m = size * (size - 1.0)
    var = (
        (m * (2 * size + 5) - x1 - y1) / 18 + (2 * xtie * ytie) / m + x0 * y0 / (9 * m * (size - 2))
    )
    return KendallTau(float(tau), float(2 * ndtr(-abs(con_minus_dis / np.sqrt(var)))))


def _tie_sums(values: np.ndarray) -> tuple[int, int]:
    """Σ t(t − 1)(t − 2) and Σ t(t − 1)(2t + 5) over the groups of t tied values."""
    _, counts = np.unique(values, return_counts=True)
    t = counts[counts > 1].astype("int64")
    return int((t * (t - 1.0) * (t - 2)).sum()), int((t * (t - 1.0) * (2 * t + 5)).sum())


def _kendall_p_exact(n: int, concordant: int) -> float:
    """Two-sided exact p-value of ``concordant`` pairs among n values without ties (Kendall,
    Rank Correlation Methods, 1970): scipy's recurrence over the count of inversions."""
    c = min(concordant, n * (n - 1) // 2 - concordant)
    if n <= 2:
        return 1.0
    if c == 0:
        prob = 2.0 / math.factorial(n) if n < 171 else 0.0
    elif c == 1:
        prob = 2.0 / math.factorial(n - 1) if n < 172 else 0.0
    elif 4 * c == n * (n - 1):
        prob = 1.0
    else:  # n ≤ 33 here: over 33 values the exact method is used only for c ≤ 1
        new = np.zeros(c + 1)
        new[0:2] = 1.0
        for j in range(3, n + 1):
            new = np.cumsum(new)
            if j <= c:
                new[j:] -= new[: c + 1 - j]
        prob = 2.0 * np.sum(new) / math.factorial(n)
    return float(np.clip(prob, 0, 1))
