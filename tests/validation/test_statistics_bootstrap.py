"""The case-clustered bootstrap: wider than the naive one when cases are correlated,
reproducible from its seed, and honest about where it cannot give an interval."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from validation.statistics import BootstrapSettings, pairwise_agreement

SETTINGS = BootstrapSettings(resamples=1000, seed=7)


def correlated_judge(*, seed: int, cases: int, criteria: int):
    """Gold hits at 30 %; the judge errs at a rate drawn per case, so its errors cluster."""
    rng = np.random.default_rng(seed)
    gold = (rng.random((cases, criteria)) < 0.3).astype(int)
    error_rate = rng.beta(0.6, 3.0, size=(cases, 1))
    flips = rng.random((cases, criteria)) < error_rate
    judge = np.where(flips, 1 - gold, gold)
    clusters = np.repeat(np.arange(cases), criteria)
    return gold.ravel(), judge.ravel(), clusters


def widths(seed: int, cases: int, criteria: int) -> tuple[float, float]:
    gold, judge, clusters = correlated_judge(seed=seed, cases=cases, criteria=criteria)

    def width(groups) -> float:
        interval = pairwise_agreement(
            reference=gold, predicted=judge, categories="hm", clusters=groups, bootstrap=SETTINGS
        ).agreement.interval
        return interval.high - interval.low

    return width(clusters), width(np.arange(len(gold)))


@settings(
    max_examples=8, derandomize=True, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
@given(st.integers(0, 10_000), st.integers(20, 60), st.integers(6, 15))
def test_clustered_interval_is_no_narrower_than_naive_when_errors_cluster(seed, cases, criteria):
    clustered, naive = widths(seed, cases, criteria)
    assert clustered >= naive


def test_clustered_interval_is_clearly_wider_on_average():
    ratios = [np.divide(*widths(seed, 40, 10)) for seed in range(5)]
    # Design effect 1 + (m − 1)ρ with strong within-case correlation: well above 1.
    assert np.mean(ratios) > 1.3, ratios


def test_independent_items_give_the_textbook_width():
    # Items as their own clusters, no correlation: width ≈ 2 × 1.96 × sqrt(p(1 − p)/n).
    rng = np.random.default_rng(3)
    n = 2000
    gold = rng.integers(0, 2, n)
    judge = np.where(rng.random(n) < 0.8, gold, 1 - gold)
    result = pairwise_agreement(
        reference=gold, predicted=judge, categories="hm", bootstrap=BootstrapSettings()
    )
    p = result.agreement.value
    interval = result.agreement.interval
    assert interval.method == "BCa"
    assert interval.low < p < interval.high
    assert interval.high - interval.low == pytest.approx(
        2 * 1.96 * np.sqrt(p * (1 - p) / n), rel=0.15
    )


def test_same_seed_same_interval_other_seed_other_interval():
    gold, judge, clusters = correlated_judge(seed=1, cases=30, criteria=8)

    def interval(seed: int):
        return pairwise_agreement(
            reference=gold,
            predicted=judge,
            categories="hm",
            clusters=clusters,
            bootstrap=BootstrapSettings(resamples=500, seed=seed),
        ).cohen_kappa.interval

    first, again, other = interval(11), interval(11), interval(12)
    assert (first.low, first.high) == (again.low, again.high)
    assert (first.low, first.high) != (other.low, other.high)
    assert first.seed == 11 and first.resamples == 500 and first.clusters == 30


def test_degenerate_distribution_falls_back_to_percentile():
    # Perfect agreement in every case: every resample gives 1, BCa is undefined.
    labels = np.tile([0, 1, 0], 20)
    result = pairwise_agreement(
        reference=labels,
        predicted=labels,
        categories="hm",
        clusters=np.repeat(np.arange(20), 3),
        bootstrap=SETTINGS,
    )
    interval = result.cohen_kappa.interval
    assert (interval.low, interval.high, interval.method) == (1.0, 1.0, "percentile")
    # A proportion's interval never has zero width (test_statistics_proportion.py): 60/60
    # agreeing items, deff 1 at p = 1, Clopper–Pearson low = 0.025^(1/60) = 0.94037.
    interval = result.agreement.interval
    assert interval.method == "clopper-pearson" and interval.high == 1.0
    assert interval.low == pytest.approx(0.025 ** (1 / 60)) and round(interval.low, 5) == 0.94037


def _rare_hits(cases_with_hits: int, statistic: str = "recall"):
    cases, criteria = 30, 5
    reference = np.ones((cases, criteria), dtype=int)
    reference[:cases_with_hits, 0] = 0
    scores = pairwise_agreement(
        reference=reference.ravel(),
        predicted=reference.ravel(),
        categories=["hit", "miss"],
        clusters=np.repeat(np.arange(cases), criteria),
        bootstrap=SETTINGS,
    ).per_class["hit"]
    return getattr(scores, statistic).interval


def test_statistic_undefined_in_a_few_resamples_uses_percentile_and_counts_them():
    # Hits in 3 of 30 cases: about (27/30)^30 ≈ 4 % of resamples hold no hit at all.
    interval = _rare_hits(3, "f1")
    assert interval.method == "percentile"
    assert 0 < interval.undefined_resamples <= 0.1 * SETTINGS.resamples
    assert interval.low == interval.high == 1.0
    # The recall of the same 3/3 is a proportion: Clopper–Pearson, low = 0.025^(1/3) = 0.29240,
    # the undefined resamples still counted.
    recall = _rare_hits(3)
    assert recall.method == "clopper-pearson" and recall.high == 1.0
    assert round(recall.low, 5) == 0.29240
    assert recall.undefined_resamples == interval.undefined_resamples


def test_statistic_undefined_in_many_resamples_is_withheld_with_a_reason():
    # Hits in 1 of 30 cases: about a third of resamples miss it.
    interval = _rare_hits(1)
    assert interval.low is None and interval.method is None
    assert "undefined in" in interval.reason
    assert interval.undefined_resamples > 0.1 * SETTINGS.resamples


def test_one_cluster_gives_no_interval():
    result = pairwise_agreement(
        reference=[0, 1, 1],
        predicted=[0, 1, 0],
        categories="hm",
        clusters=[0, 0, 0],
        bootstrap=SETTINGS,
    )
    assert result.agreement.value == pytest.approx(2 / 3)
    assert result.agreement.interval.low is None
    assert "at least two" in result.agreement.interval.reason
