"""A proportion's interval never has zero width (issue 42, item 1).

At or near 0 or 1, with a degenerate bootstrap or with few clusters, a proportion's interval is
the wider of the case bootstrap's and the exact Clopper–Pearson interval at the clusters'
effective size (n / deff); the gate and the sequential monitor decide on that interval, and a
mid-range proportion over many clusters keeps its bootstrap interval untouched.

Hand-worked Clopper–Pearson bounds for x = n (all successes): the lower bound solves
P(Bin(n, p) ≥ n) = p^n = α/2, so low = 0.025^(1/n):
  n = 10: exp(ln 0.025 / 10) = exp(−3.688879 / 10) = exp(−0.368888) = 0.691503
  n = 16: exp(−3.688879 / 16) = exp(−0.230555) = 0.794093
  n = 18: exp(−3.688879 / 18) = exp(−0.204938) = 0.814698
"""

import numpy as np
import pytest
from scipy import stats

from tests.builders.study_data import study
from validation.dashboard.monitoring import look_conditions
from validation.gate import CATASTROPHIC_RECALL, PASSED
from validation.report import report_compute
from validation.report.compute import judge_gate_compute
from validation.report.data import HIT, MISS
from validation.statistics import (
    BootstrapSettings,
    cluster_bootstrap,
    pairwise_agreement,
    pairwise_tables,
    tables_statistic,
)
from validation.statistics.pairwise import pairwise_statistics
from validation.statistics.proportion import design_effect
from validation.statistics.sequential import (
    NO_DATA,
    UNDECIDED,
    condition_from_interval,
    study_monitor,
)

BOOT = BootstrapSettings(resamples=400, seed=3)
H, M = HIT, MISS
LOW_10, LOW_16, LOW_18 = 0.691503, 0.794093, 0.814698


def _caught(cases: int):
    """One gold hit and two misses per case, the judge right on all of them."""
    labels = np.tile([0, 1, 1], cases)
    return pairwise_agreement(
        reference=labels,
        predicted=labels,
        categories=["hit", "miss"],
        clusters=np.repeat(np.arange(cases), 3),
        bootstrap=BOOT,
    )


@pytest.mark.parametrize(("cases", "low"), [(10, LOW_10), (16, LOW_16)])
def test_all_successes_give_the_exact_lower_bound_not_one(cases, low):
    interval = _caught(cases).per_class["hit"].recall.interval
    assert interval.low == pytest.approx(low, abs=1e-6)
    assert interval.high == 1.0
    # One hit per case: the clusters add nothing (deff 1), so it is the unclustered interval.
    assert interval.method == "clopper-pearson"
    assert interval.low == pytest.approx(
        stats.binomtest(cases, cases).proportion_ci(method="exact").low
    )


def test_all_failures_give_the_exact_upper_bound_not_zero():
    labels = np.tile([0, 1, 1], 10)
    interval = (
        pairwise_agreement(
            reference=labels,
            predicted=np.ones_like(labels),  # every hit missed
            categories=["hit", "miss"],
            clusters=np.repeat(np.arange(10), 3),
            bootstrap=BOOT,
        )
        .per_class["hit"]
        .recall.interval
    )
    # 0/10: high = 1 − 0.025^(1/10) = 1 − 0.691503 = 0.308497.
    assert (interval.low, interval.method) == (0.0, "clopper-pearson")
    assert interval.high == pytest.approx(1 - LOW_10, abs=1e-6)


def test_the_design_effect_shrinks_n_for_clustered_failures():
    # 20 cases of 5 items: 18 cases agree on all 5, 2 disagree on all 5. p = 90/100 = 0.9;
    # residuals x_c − p n_c: 5 − 4.5 = 0.5 (18 cases), 0 − 4.5 = −4.5 (2 cases);
    # Σ r² = 18 · 0.25 + 2 · 20.25 = 45; n p (1 − p) = 100 · 0.09 = 9; deff = 45 / 9 = 5.
    # Effective: n = 100 / 5 = 20, x = 0.9 · 20 = 18: Clopper–Pearson 18/20 = [0.6830, 0.9877].
    reference = np.zeros(100, dtype=int)
    predicted = reference.copy()
    predicted[:10] = 1
    clusters = np.repeat(np.arange(20), 5)
    successes = np.bincount(clusters, weights=(reference == predicted).astype(float))
    assert design_effect(successes=successes, trials=np.full(20, 5.0)) == pytest.approx(5.0)
    interval = pairwise_agreement(
        reference=reference,
        predicted=predicted,
        categories=["hit", "miss"],
        clusters=clusters,
        bootstrap=BOOT,
    ).agreement.interval
    exact = stats.binomtest(18, 20).proportion_ci(method="exact")
    assert interval.method == "clopper-pearson-clustered"
    assert (interval.low, interval.high) == pytest.approx((exact.low, exact.high))
    assert (round(interval.low, 4), round(interval.high, 4)) == (0.6830, 0.9877)
    assert interval.design_effect == pytest.approx(5.0)


def test_design_effect_is_one_for_single_item_clusters_and_at_the_bounds():
    # One item per cluster: Σ r² = Σ (y − p)² = n p (1 − p) exactly.
    assert design_effect(successes=[1, 1, 0, 1], trials=[1, 1, 1, 1]) == pytest.approx(1.0)
    # All successes: no variance to compare, so never below 1.
    assert design_effect(successes=[3, 2], trials=[3, 2]) == 1.0
    # Failures spread evenly over clusters (less variance than binomial): clamped to 1.
    assert design_effect(successes=[4, 4, 4], trials=[5, 5, 5]) == 1.0


def test_a_fine_bootstrap_interval_is_unchanged():
    # Mid-range agreement (about 0.7) over 60 cases of 10 items: BCa, as before.
    rng = np.random.default_rng(11)
    cases = 60
    reference = rng.integers(0, 2, cases * 10)
    predicted = np.where(rng.random(cases * 10) < 0.7, reference, 1 - reference)
    clusters = np.repeat(np.arange(cases), 10)
    interval = pairwise_agreement(
        reference=reference,
        predicted=predicted,
        categories=["hit", "miss"],
        clusters=clusters,
        bootstrap=BOOT,
    ).agreement.interval
    tables = pairwise_tables(
        reference=reference,
        predicted=predicted,
        clusters=clusters,
        n_clusters=cases,
        n_categories=2,
    )
    (bootstrap,) = cluster_bootstrap(
        statistic=tables_statistic(
            compute=pairwise_statistics(["hit", "miss"])["agreement"].compute,
            cluster_tables=tables,
        ),
        n_clusters=cases,
        settings=BOOT,
    )
    assert bootstrap.method == "BCa"
    assert interval == bootstrap


def _catastrophes_caught(cases: int):
    """Every case: warmth hit, the rest missed, a gold catastrophe the judge catches."""
    gold = [[[H, M, M, H]] for _ in range(cases)]
    return study(
        gold_rows=gold,
        judges={"judge": np.array(gold).ravel()},
        cases=cases,
        hard=[False] * cases,
    )


@pytest.mark.parametrize(("cases", "low"), [(10, LOW_10), (16, LOW_16)])
def test_catastrophic_recall_of_all_hits_does_not_pass_the_gate(cases, low):
    _, gate = judge_gate_compute(
        data=_catastrophes_caught(cases),
        judge=_catastrophes_caught(cases).judges[0],
        bootstrap=BOOT,
    )
    (condition,) = [c for c in gate.conditions if c.name == CATASTROPHIC_RECALL]
    assert condition.value == 1.0
    assert condition.low == pytest.approx(low, abs=1e-6)
    # low < 0.8 ≤ high: the interval straddles the threshold.
    assert condition.status == UNDECIDED
    assert gate.decision != PASSED


def test_a_breakdown_of_all_hits_caught_has_a_named_interval_of_non_zero_width():
    report = report_compute(data=_catastrophes_caught(18), bootstrap=BOOT)
    warmth = report["judges"][0]["breakdowns"]["ability"]["warmth"]
    recall = warmth["recall_hit"]
    assert (recall["value"], recall["n"], recall["high"]) == (1.0, 18, 1.0)
    assert recall["low"] == pytest.approx(LOW_18, abs=1e-6)
    assert recall["method"] == "clopper-pearson"
    assert warmth["agreement"]["low"] == pytest.approx(LOW_18, abs=1e-6)
    catastrophic = report["judges"][0]["catastrophic"]["recall_hit"]
    assert catastrophic["method"] == "clopper-pearson"


def test_the_sequential_se_comes_from_the_wider_side_and_is_never_zero():
    # 10/10: [0.6915, 1]; the lower side is the wider, SE = (1 − 0.6915) / 1.96 = 0.1574.
    condition = condition_from_interval(
        name="c", value=1.0, low=LOW_10, high=1.0, threshold=0.8, limits=(0.0, 1.0)
    )
    assert condition.se == pytest.approx((1 - LOW_10) / 1.959964, rel=1e-5)
    # A zero-width interval gives no standard error at all: no data, never a pass.
    flat = condition_from_interval(name="c", value=1.0, low=1.0, high=1.0, threshold=0.8)
    assert flat.se is None
    monitor = study_monitor(conditions=[flat], completed=10, planned=10, every=5)
    assert monitor.conditions[0].status == NO_DATA


def test_the_monitor_does_not_pass_all_successes_at_any_look():
    data = _catastrophes_caught(16)
    cases = list(data.case_keys)
    for completed in (8, 16):  # looks at 8 (8 hits: too few) and 16 cases
        conditions = look_conditions(data=data, cases=cases[:completed], bootstrap=BOOT)
        monitor = study_monitor(
            conditions=[c.sequential for c in conditions], completed=completed, planned=16, every=8
        )
        statuses = {
            c.condition.name: s.status for c, s in zip(conditions, monitor.conditions, strict=True)
        }
        assert statuses[CATASTROPHIC_RECALL] in (NO_DATA, UNDECIDED), completed
        assert not monitor.decided
    assert statuses[CATASTROPHIC_RECALL] == UNDECIDED  # 16/16: SE from [0.794, 1]
