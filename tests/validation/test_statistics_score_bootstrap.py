"""Score-level agreement bootstrapped over questions: hand-worked figures, the resampled rows
of every question kept together, a second implementation of the point ICC(2,1), and the
report, its CSV and its page carrying the question intervals."""

import itertools

import numpy as np
import pytest
from django.template.loader import render_to_string
from scipy import stats

from tests.builders.study_data import study
from validation.report import report_compute, report_csv
from validation.report.charts import bland_altman_chart
from validation.report.data import HIT, MISS
from validation.statistics import BootstrapSettings
from validation.statistics.score_bootstrap import (
    score_agreement_bootstrap,
    score_agreement_statistic,
)
from validation.statistics.scores import Z_975, bland_altman, icc_2_1

# 4 questions × 2 models = 8 case scores, rows in question order: (q1 m1, q1 m2, q2 m1, ...).
HAND_GOLD = [50, 54, 46, 52, 55, 50, 48, 53]
HAND_JUDGE = [52, 56, 48, 52, 55, 52, 48, 53]
HAND_QUESTIONS = [0, 0, 1, 1, 2, 2, 3, 3]
SETTINGS = BootstrapSettings(resamples=2000, seed=11)


def ten_by_three():
    """10 questions × 3 models with a shared question effect, less three unscored cases (so the
    questions hold 2 or 3 case scores): 27 case scores."""
    rng = np.random.default_rng(42)
    level = rng.normal(55, 12, 10).repeat(3)
    gold = np.round(level + rng.normal(0, 6, 30), 3)
    judge = np.round(gold + 3 + rng.normal(0, 5, 30) + np.repeat(rng.normal(0, 4, 10), 3), 3)
    questions = np.repeat(np.arange(10), 3)
    keep = np.ones(30, dtype=bool)
    keep[[4, 17, 29]] = False
    return gold, judge, questions, keep


def _figures_by_duplication(first, second, questions, drawn):
    """ICC(2,1), bias and limits of the rows a resample drawing ``drawn`` questions holds."""
    rows = np.concatenate([np.flatnonzero(np.asarray(questions) == q) for q in drawn])
    a, b = np.asarray(first, float)[rows], np.asarray(second, float)[rows]
    icc, ba = icc_2_1(scores=np.column_stack([a, b])), bland_altman(first=a, second=b)
    return [
        np.nan if icc.value is None else icc.value,
        ba.mean_difference,
        ba.lower_limit,
        ba.upper_limit,
    ]


def test_hand_worked_icc_and_limits_on_four_questions_by_two_models():
    statistic, questions = score_agreement_statistic(
        first=HAND_GOLD, second=HAND_JUDGE, clusters=HAND_QUESTIONS
    )
    # Grand mean 51.5; case means 51, 55, 47, 52, 55, 51, 48, 53; gold mean 51, judge 52.
    # SS_cases = 2 × 60 = 120, SS_raters = 8 × (0.25 + 0.25) = 4, SS_total = 128, SS_error = 4.
    # MSR = 120/7, MSC = 4, MSE = 4/7: ICC = (116/7) / (124/7 + 2 (4 − 4/7) / 8) = 58/65.
    icc, bias, low, high = statistic(np.ones(questions))
    assert questions == 4
    assert icc == pytest.approx(58 / 65, abs=1e-12)
    # Differences 2, 2, 2, 0, 0, 2, 0, 0: mean 1, Σ (d − 1)² = 8, SD = √(8/7).
    assert bias == pytest.approx(1.0, abs=1e-12)
    assert (low, high) == pytest.approx((1 - Z_975 * np.sqrt(8 / 7), 1 + Z_975 * np.sqrt(8 / 7)))
    assert icc_2_1(scores=np.column_stack([HAND_GOLD, HAND_JUDGE])).value == pytest.approx(icc)


def test_bias_interval_is_the_enumerated_bootstrap_over_questions():
    # The questions' mean differences are 2, 1, 1, 0: one drawn question is Binomial(2, ½), so
    # the bias of four drawn questions is Binomial(8, ½) / 4 over the 4⁴ equally likely draws.
    means = [2, 1, 1, 0]
    exact = sorted(np.mean(draw) for draw in itertools.product(means, repeat=4))
    assert sum(b <= 0 for b in exact) == 1 and sum(b <= 0.25 for b in exact) == 9  # of 256
    # The 2.5 % and 97.5 % points fall on 0.25 and 1.75 (1/256 < 2.5 % < 9/256), and the
    # leave-one-question-out biases 2/3, 1, 1, 4/3 are symmetric: BCa is the percentile here.
    assert (exact[int(0.025 * 256)], exact[int(0.975 * 256)]) == (0.25, 1.75)
    intervals = score_agreement_bootstrap(
        first=HAND_GOLD, second=HAND_JUDGE, clusters=HAND_QUESTIONS, settings=SETTINGS
    )
    bias = intervals.mean_difference
    assert (bias.low, bias.high, bias.method, bias.clusters) == (0.25, 1.75, "BCa", 4)


def test_weights_stand_for_the_rows_a_resample_draws():
    # Every one of the 35 distinct resamples of the 4 questions, and resamples of unequal
    # questions (2 or 3 case scores each): the weighted sums give the resampled rows' figures.
    gold, judge, questions, keep = ten_by_three()
    every_resample = itertools.combinations_with_replacement(range(4), 4)
    cases = [
        (HAND_GOLD, HAND_JUDGE, HAND_QUESTIONS, every_resample),
        (gold[keep], judge[keep], questions[keep], [(0, 0, 1, 5, 9, 9, 9, 2, 3, 4), (1,) * 10]),
    ]
    for first, second, clusters, draws in cases:
        statistic, n = score_agreement_statistic(first=first, second=second, clusters=clusters)
        for drawn in draws:
            weights = np.bincount(drawn, minlength=n).astype(float)
            expected = _figures_by_duplication(first, second, clusters, drawn)
            assert statistic(weights) == pytest.approx(expected, rel=1e-9, nan_ok=True), drawn


def test_intervals_are_scipy_stats_bootstrap_over_questions():
    # scipy.stats.bootstrap (BCa) over the question indices, each resample rebuilt by copying
    # every drawn question's rows: the same draws from the same seed, the same intervals. (Seed
    # 6 draws no resample holding each question once: such a resample ties the point estimate
    # only up to rounding, which moves BCa's bias correction by 1/(2 × 999) one way or other.)
    gold, judge, questions, keep = ten_by_three()
    first, second, clusters = gold[keep], judge[keep], questions[keep]
    settings = BootstrapSettings(resamples=999, seed=6)
    ours = score_agreement_bootstrap(
        first=first, second=second, clusters=clusters, settings=settings
    )
    for index, interval in enumerate(
        (ours.icc, ours.mean_difference, ours.lower_limit, ours.upper_limit)
    ):

        def figure(drawn, index=index):
            return _figures_by_duplication(first, second, clusters, drawn.astype(int))[index]

        theirs = stats.bootstrap(
            (np.arange(10),),
            figure,
            n_resamples=999,
            method="BCa",
            vectorized=False,
            rng=np.random.default_rng(6),
        ).confidence_interval
        assert interval.method == "BCa"
        assert (interval.low, interval.high) == pytest.approx((theirs.low, theirs.high), rel=1e-9)


def test_point_icc_matches_pingouin():
    # pingouin 0.7.0, intraclass_corr(...) row "ICC(A,1)" (its name for ICC(2,1)), run in a
    # throwaway virtualenv outside the project on these very scores (all 30 of ten_by_three).
    gold, judge, _, _ = ten_by_three()
    for first, second, clusters, pingouin in (
        (HAND_GOLD, HAND_JUDGE, HAND_QUESTIONS, 0.8923076923076921),
        (gold, judge, np.repeat(np.arange(10), 3), 0.9141977708719405),
    ):
        statistic, n = score_agreement_statistic(first=first, second=second, clusters=clusters)
        assert statistic(np.ones(n))[0] == pytest.approx(pingouin, abs=1e-12)
        assert icc_2_1(scores=np.column_stack([first, second])).value == pytest.approx(
            pingouin, abs=1e-12
        )


def correlated_questions(seed: int):
    """30 questions × 3 models: a question's level moves all its scores, and the judge's error
    is mostly the question's (a rubric it misreads), little the model's."""
    rng = np.random.default_rng(seed)
    level = np.repeat(rng.normal(55, 12, 30), 3)
    gold = level + rng.normal(0, 4, 90)
    judge = gold + np.repeat(rng.normal(2, 6, 30), 3) + rng.normal(0, 1.5, 90)
    return gold, judge, np.repeat(np.arange(30), 3)


@pytest.mark.parametrize("seed", [100, 101, 102])
def test_question_intervals_are_wider_than_row_intervals_when_questions_correlate(seed):
    # Three models' scores of one question move together: a bootstrap over the 90 rows would
    # take them for 90 independent scores and give intervals far too narrow.
    gold, judge, questions = correlated_questions(seed)
    by_question = score_agreement_bootstrap(
        first=gold, second=judge, clusters=questions, settings=SETTINGS
    )
    by_row = score_agreement_bootstrap(
        first=gold, second=judge, clusters=np.arange(90), settings=SETTINGS
    )
    assert by_question.questions == 30 and by_row.questions == 90
    for name in ("icc", "mean_difference", "lower_limit", "upper_limit"):
        wide, narrow = getattr(by_question, name), getattr(by_row, name)
        assert wide.high - wide.low > 1.3 * (narrow.high - narrow.low), name


def test_limit_intervals_match_bland_altman_1999_on_independent_scores():
    # Bland & Altman (1999, §5.1): SE(bias) = s/√n, SE(limit) ≈ s √(1/n + 1.96²/(2(n − 1))).
    # On independent normal differences (150 questions × 2 models, no question effect) the
    # question bootstrap's 95 % intervals are about 2 × 1.96 × SE wide.
    bias_ratios, limit_ratios = [], []
    for seed in range(6):
        rng = np.random.default_rng(seed)
        gold = rng.normal(50, 10, 300)
        judge = gold + rng.normal(1, 5, 300)
        found = score_agreement_bootstrap(
            first=gold,
            second=judge,
            clusters=np.repeat(np.arange(150), 2),
            settings=BootstrapSettings(resamples=2000, seed=3),
        )
        s = np.std(judge - gold, ddof=1)
        se_bias = s / np.sqrt(300)
        se_limit = s * np.sqrt(1 / 300 + Z_975**2 / (2 * 299))
        bias_ratios.append((found.mean_difference.high - found.mean_difference.low) / se_bias)
        for limit in (found.lower_limit, found.upper_limit):
            limit_ratios.append((limit.high - limit.low) / se_limit)
    assert np.array(bias_ratios) / (2 * Z_975) == pytest.approx(np.ones(6), rel=0.1)
    assert np.mean(limit_ratios) / (2 * Z_975) == pytest.approx(1.0, rel=0.1)
    assert all(0.75 < r / (2 * Z_975) < 1.35 for r in limit_ratios)


def test_one_question_gives_no_interval_but_says_why():
    found = score_agreement_bootstrap(
        first=[40, 50, 60], second=[42, 49, 63], clusters=[7, 7, 7], settings=SETTINGS
    )
    assert found.questions == 1
    assert found.icc.low is None and found.icc.reason == (
        "1 cluster(s): a bootstrap needs at least two"
    )
    nothing = score_agreement_bootstrap(first=[], second=[], clusters=[], settings=SETTINGS)
    assert nothing.questions == 0 and nothing.upper_limit.method is None


H, M = HIT, MISS
BOOT = BootstrapSettings(resamples=300, seed=5)


def _report():
    gold = [[[H, M, M, M], [H, H, M, M], [M, M, H, M]], [[M, H, M, M], [H, M, M, M], [H, H, M, M]]]
    gold += [[[H, H, M, M], [M, M, M, M], [H, M, H, M]]]
    judge = [[[H, H, M, M], [H, H, M, M], [M, M, H, M]], [[M, H, M, M], [H, H, M, M], [H, M, M, M]]]
    judge += [[[H, M, M, M], [M, M, M, M], [H, M, H, M]]]
    data = study(
        gold_rows=gold,
        judges={"j": np.array(judge).ravel()},
        models=("a", "b", "c"),
        cases=3,
        hard=(False, True, False),
    )
    return report_compute(data=data, bootstrap=BOOT)


def test_the_report_resamples_questions_and_names_its_units():
    report = _report()
    cases = report["judges"][0]["score_effect"]["cases"]
    assert (cases["questions"], cases["models"], cases["n"]) == (3, 3, 9)
    # Rows come model by model, each over the questions: question of row i is i mod 3.
    expected = score_agreement_bootstrap(
        first=cases["gold"], second=cases["judge"], clusters=[0, 1, 2] * 3, settings=BOOT
    )
    by_row = score_agreement_bootstrap(
        first=cases["gold"], second=cases["judge"], clusters=range(9), settings=BOOT
    )
    icc, ba = cases["icc"], cases["bland_altman"]
    assert icc["ci95"]["resampled"] == "questions"
    assert (icc["ci95"]["low"], icc["ci95"]["high"]) == (expected.icc.low, expected.icc.high)
    assert (icc["ci95"]["low"], icc["ci95"]["high"]) != (by_row.icc.low, by_row.icc.high)
    for key in ("mean_difference", "lower_limit", "upper_limit"):
        ci = ba[f"{key}_ci95"]
        assert (ci["low"], ci["high"]) == (getattr(expected, key).low, getattr(expected, key).high)
        assert ci["method"] in ("BCa", "percentile") and ci["resampled"] == "questions"
    # The F interval stays, under its own name: it takes the 9 case scores as independent.
    assert icc["f_interval"]["method"] == "McGraw-Wong F"
    assert icc["f_interval"]["assumes"] == "independent subjects"
    assert "low" not in icc and "high" not in icc


def test_csv_and_page_show_the_question_intervals():
    report = _report()
    cases = report["judges"][0]["score_effect"]["cases"]
    text = report_csv(report)
    icc_rows = [line for line in text.splitlines() if ",icc_2_1" in line]
    assert len(icc_rows) == 2
    assert f"{cases['icc']['ci95']['method']}, questions resampled" in icc_rows[0]
    assert "3 questions x 3 models" in icc_rows[0]
    assert "McGraw-Wong F (cases as independent)" in icc_rows[1]
    limit_rows = [line for line in text.splitlines() if "bland_altman,judge - gold,lower" in line]
    assert "questions resampled" in limit_rows[0]
    chart = bland_altman_chart(title="t", cases=cases)
    page = render_to_string(
        "validation/_case_scores.html", {"cases": cases, "j": {"chart_bland_altman": chart}}
    )
    assert "3 questions × 3 models, 9 cases scored" in page
    assert "which takes the 9 cases as independent" in page
    low = cases["bland_altman"]["lower_limit_ci95"]["low"]
    assert f"[{low:.2f}," in page
    # The chart shades each line's interval: the mean difference's and both limits'.
    assert chart.count('fill-opacity=".08"') == 3
