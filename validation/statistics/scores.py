"""Agreement of two raters' scores on the same subjects (pure): ICC(2,1), Bland–Altman, and
Kendall's τ-b vectorised over bootstrap resamples.

In the study report a subject is a case (question × model): its case score from the gold
labels against its case score from the judge's.
"""

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
        return asdict(self) | {"form": "ICC(2,1): two-way random, absolute agreement, single"}


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
    from scipy import stats  # deferred: a second to import

    alpha = 1 - level
    a = k * icc / (n * (1 - icc))
    b = 1 + k * icc * (n - 1) / (n * (1 - icc))
    spread_df = (a * msc) ** 2 / (k - 1) + (b * mse) ** 2 / ((n - 1) * (k - 1))
    if spread_df <= 0:  # e.g. no column effect and a zero-width error term at a negative ICC
        return Icc(n=n, value=float(icc), low=None, high=None, reason="interval undefined")
    v = (a * msc + b * mse) ** 2 / spread_df
    f_low = stats.f.ppf(1 - alpha / 2, n - 1, v)
    f_high = stats.f.ppf(1 - alpha / 2, v, n - 1)
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
