"""Intervals for score-level agreement that honour the design: questions are the sampled unit.

Case scores come as question × model rows, and the models' rows of one question share its
dialogue and rubric, so they are not independent; an F interval or a bootstrap over rows
treats them as if they were and comes out too narrow. Here ICC(2,1) and Bland–Altman's bias
and limits of agreement are bootstrapped over questions: a resample draws questions with
replacement and every model's row of a drawn question comes along. Both statistics are
functions of weighted sums of per-question tables, so a resample is one matrix product
(``cluster_bootstrap``) and ICC, bias and limits all see the same resamples.
"""

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from validation.statistics.bootstrap import WeightedStatistic, cluster_bootstrap, tables_statistic
from validation.statistics.results import BootstrapSettings, Interval
from validation.statistics.scores import Z_975

# Per-question table columns: rows, Σ (row sum)², Σ x², Σ d, Σ d², then one Σ x per rater
# (x: a score centred on the grand mean; d: second − first centred on the mean difference).
_ROWS, _ROW_SUM_SQ, _SQ, _D, _D_SQ, _COLUMNS = range(6)


@dataclass(frozen=True)
class ScoreAgreementIntervals:
    """Question-bootstrap intervals of ICC(2,1) and of Bland–Altman (second − first)."""

    questions: int
    icc: Interval
    mean_difference: Interval
    lower_limit: Interval
    upper_limit: Interval


def score_agreement_statistic(
    *, first: ArrayLike, second: ArrayLike, clusters: ArrayLike
) -> tuple[WeightedStatistic, int]:
    """ICC(2,1), mean difference, lower and upper limit (4, ...) as a function of question
    weights (..., n_questions), and the number of questions. With weight w a question's rows
    count w times, exactly as if a resample had drawn it w times."""
    x = np.column_stack([np.asarray(first, dtype=float), np.asarray(second, dtype=float)])
    _, question = np.unique(np.asarray(clusters), return_inverse=True)
    n_questions = int(question.max()) + 1 if question.size else 0
    difference = x[:, 1] - x[:, 0]
    centre = float(difference.mean()) if difference.size else 0.0
    # Centring changes neither statistic and keeps the sums of squares well conditioned.
    x = x - (x.mean() if x.size else 0.0)
    d = difference - centre
    per_row = np.column_stack([np.ones(len(x)), x.sum(axis=1) ** 2, (x**2).sum(axis=1), d, d**2, x])
    tables = np.zeros((n_questions, per_row.shape[1]))
    np.add.at(tables, question, per_row)
    k = x.shape[1]
    statistic = tables_statistic(compute=lambda t: _figures(t, k, centre), cluster_tables=tables)
    return statistic, n_questions


def _figures(totals: np.ndarray, k: int, centre: float) -> np.ndarray:
    """(…, columns) weighted totals → (4, …): ICC(2,1), bias, lower and upper limit."""
    n = totals[..., _ROWS]
    with np.errstate(invalid="ignore", divide="ignore"):
        grand_sq = totals[..., _COLUMNS:].sum(axis=-1) ** 2 / (n * k)
        ss_total = totals[..., _SQ] - grand_sq
        ss_rows = totals[..., _ROW_SUM_SQ] / k - grand_sq
        ss_cols = (totals[..., _COLUMNS:] ** 2).sum(axis=-1) / n - grand_sq
        msr, msc = ss_rows / (n - 1), ss_cols / (k - 1)
        mse = (ss_total - ss_rows - ss_cols) / ((n - 1) * (k - 1))
        denominator = msr + (k - 1) * mse + k * (msc - mse) / n
        # As icc_2_1: no variance between subjects leaves the ICC undefined (rounding aside).
        defined = denominator > 1e-12 * np.maximum(ss_total / (n * k), 1e-300)
        icc = np.where(defined, (msr - mse) / np.where(defined, denominator, 1), np.nan)
        shift = totals[..., _D] / n
        sd = np.sqrt(np.maximum(totals[..., _D_SQ] - n * shift**2, 0) / (n - 1))
        bias = centre + shift
    return np.stack([icc, bias, bias - Z_975 * sd, bias + Z_975 * sd])


def score_agreement_bootstrap(
    *, first: ArrayLike, second: ArrayLike, clusters: ArrayLike, settings: BootstrapSettings
) -> ScoreAgreementIntervals:
    """Intervals of ICC(2,1) and of Bland–Altman's bias and 95 % limits of agreement
    (``second − first``) by resampling whole clusters — in the report, questions — so that
    every model's score of a drawn question moves with it. BCa where defined (see
    ``cluster_bootstrap``); the limits are the sample's mean ± 1.96 SD in every resample."""
    statistic, n_questions = score_agreement_statistic(
        first=first, second=second, clusters=clusters
    )
    icc, bias, low, high = cluster_bootstrap(
        statistic=statistic, n_clusters=n_questions, settings=settings
    )
    return ScoreAgreementIntervals(n_questions, icc, bias, low, high)
