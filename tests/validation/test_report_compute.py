"""The pure report computation on hand-built studies, with figures worked out by hand."""

import numpy as np
import pytest

from benchmark.scoring import Criterion, case_score
from tests.builders.study_data import RUBRIC, study
from validation.report import report_compute, report_csv
from validation.report.data import HIT, MISS, JudgeLabels
from validation.report.score_effect import weighted_overall
from validation.statistics import MISSING, BootstrapSettings

BOOT = BootstrapSettings(resamples=300, seed=5)


H, M = HIT, MISS


def test_a_perfect_judge_and_hand_counted_figures():
    gold = [[[H, M, M, M]], [[H, H, M, M]]]
    judge = {"exact": np.array(gold).ravel(), "lenient": [H, H, M, M, H, H, H, M]}
    report = report_compute(data=study(gold_rows=gold, judges=judge), bootstrap=BOOT)
    exact, lenient = report["judges"]
    assert exact["vs_gold"]["agreement"]["value"] == 1.0
    assert exact["vs_gold"]["cohen_kappa"]["value"] == 1.0
    # lenient: 2 wrong of 8 (gold miss, judge hit): agreement 6/8, recall on hit 3/3, on miss 3/5.
    assert lenient["vs_gold"]["agreement"]["value"] == pytest.approx(0.75)
    assert lenient["vs_gold"]["recall_hit"]["value"] == 1.0
    assert lenient["vs_gold"]["recall_miss"]["value"] == pytest.approx(3 / 5)
    assert lenient["vs_gold"]["confusion"]["matrix"] == [[3, 0], [2, 3]]
    # κ from the table: po = .75, pe = (3/8)(5/8) + (5/8)(3/8) = 30/64.
    assert lenient["vs_gold"]["cohen_kappa"]["value"] == pytest.approx(
        (0.75 - 30 / 64) / (1 - 30 / 64)
    )
    agreement = lenient["gate"]["conditions"][0]
    assert (agreement["name"], agreement["value"], agreement["threshold"]) == (
        "agreement",
        pytest.approx(0.75),
        0.75,
    )
    # Two gold catastrophic hits of the ten the gate needs: undecided, whatever the rest says.
    catastrophic = lenient["gate"]["conditions"][2]
    assert catastrophic["status"] == "not_enough_data" and "0 gold" in catastrophic["reason"]
    assert lenient["gate"]["decision"] in ("failed", "not_enough_data")
    assert lenient["breakdowns"]["sign"]["negative"]["agreement"]["value"] == 0.5
    assert lenient["breakdowns"]["difficulty"]["hard"]["n"] == 4
    assert report["comparison"][0]["judge"] == "exact"
    assert exact["score_effect"]["models"][0]["difference"] == 0.0


def test_the_human_baseline_and_the_judges_noninferiority():
    gold = [[[H, M, M, M]], [[H, H, M, M]]]
    judge = {"exact": np.array(gold).ravel(), "lenient": [H, H, M, M, H, H, H, M]}
    report = report_compute(data=study(gold_rows=gold, judges=judge), bootstrap=BOOT)
    # Unanimous experts: every (item, r) pair has a reference, each expert agrees with it.
    pooled = report["experts"]["vs_others"]["pooled"]
    assert (pooled["n"], pooled["agreement"]["value"], pooled["macro_f1"]["value"]) == (24, 1, 1)
    assert report["experts"]["vs_others"]["raters"]["R-0"]["n"] == 8
    exact, lenient = report["judges"]
    assert exact["noninferiority"]["difference"] == 0
    # Judge and experts perfect on every resample of the two cases: the interval [0, 0] has
    # zero width and shows nothing (issue 42), so neither does the test, nor the gate.
    assert exact["noninferiority"]["ci95"]["low"] == exact["noninferiority"]["ci95"]["high"] == 0
    assert exact["noninferiority"]["passed"] is None
    noninferiority = exact["gate"]["conditions"][1]
    assert noninferiority["status"] == "not_enough_data"
    assert "zero width" in noninferiority["reason"]
    # lenient on the 24 pairs: [[9, 0], [6, 9]], F1 hit 18/24 = F1 miss → macro-F1 0.75.
    assert lenient["vs_others"]["pooled"]["agreement"]["value"] == pytest.approx(0.75)
    assert lenient["noninferiority"]["difference"] == pytest.approx(-0.25)
    assert lenient["noninferiority"]["passed"] is False
    text = report_csv(report)
    assert "expert_vs_other_two,,pooled,,macro_f1,1.0,24," in text
    difference = "macro_f1_judge_minus_experts,-0.25,24,"
    assert f"noninferiority,lenient,pooled,delta -0.05,{difference}" in text
    assert "noninferiority,lenient,pooled,,passed,False" in text


def test_scores_equal_the_scoring_engine_case_by_case():
    gold = [[[H, M, M, M]], [[H, H, H, M]]]
    judge = {"j": [M, H, M, M, H, H, M, H]}  # the second case is a catastrophe for the judge
    effect = report_compute(data=study(gold_rows=gold, judges=judge), bootstrap=BOOT)["judges"][0][
        "score_effect"
    ]
    criteria = [Criterion(a, p) for a, p in RUBRIC]

    def overall(labels):
        scores = [case_score(criteria=criteria, hits=[x == H for x in case]) for case in labels]
        abilities = {a for s in scores for a in s.abilities}
        means = [np.mean([s.abilities[a] for s in scores if a in s.abilities]) for a in abilities]
        return float(np.mean(means))

    row = effect["models"][0]
    assert row["gold"] == pytest.approx(overall([g[0] for g in gold]))
    assert row["judge"] == pytest.approx(overall([[M, H, M, M], [H, H, M, H]]))
    assert row["catastrophic_cases"] == {"gold": 0, "judge": 1}
    assert "low" in row["difference_ci95"]


def test_weighted_overall_is_the_plain_overall_at_unit_weights():
    rng = np.random.default_rng(1)
    matrix = rng.uniform(0, 100, size=(6, 15))
    matrix[rng.random(matrix.shape) < 0.4] = np.nan
    expected = np.nanmean(np.nanmean(matrix, axis=0))
    assert weighted_overall(np.ones(6), matrix) == pytest.approx(expected)
    # A case drawn twice counts twice.
    doubled = np.vstack([matrix, matrix[:1]])
    weights = np.array([2, 1, 1, 1, 1, 1.0])
    assert weighted_overall(weights, matrix) == pytest.approx(weighted_overall(np.ones(7), doubled))


def test_rank_agreement_of_three_models():
    # Scores 66.7, 100 and 0 (a negative criterion hit scores 0 on its ability).
    gold = [[[H, M, M, M], [H, H, M, M], [M, M, H, M]]] * 2
    same = np.array(gold).ravel()
    reversed_ = np.array([[[H, M, M, M], [M, M, H, M], [H, H, M, M]]] * 2).ravel()
    report = report_compute(
        data=study(gold_rows=gold, judges={"same": same, "reversed": reversed_},
                   models=("a", "b", "c")),
        bootstrap=BOOT,
    )  # fmt: skip
    ranks = {j["judge"]: j["score_effect"]["rank_agreement"] for j in report["judges"]}
    assert ranks["same"]["kendall_tau"] == pytest.approx(1.0)
    assert ranks["reversed"]["kendall_tau"] == pytest.approx(-1.0)
    # Three models: the report warns instead of leaning on the p-value.
    assert "only 3 models" in ranks["same"]["warning"]
    assert set(ranks["same"]["ci95"]) >= {"low", "high"}


def test_case_scores_icc_and_bland_altman_pair_each_question_and_model():
    gold = [[[H, M, M, M], [H, H, M, M], [M, M, H, M]]] * 2
    judge = np.array([[[H, H, M, M], [H, H, M, M], [M, M, H, M]]] * 2).ravel()
    report = report_compute(
        data=study(gold_rows=gold, judges={"j": judge}, models=("a", "b", "c")), bootstrap=BOOT
    )
    cases = report["judges"][0]["score_effect"]["cases"]
    assert cases["n"] == 6  # 2 questions × 3 models
    # Model a's case score moves from the gold's to the judge's on both questions; b and c stay.
    gold_a = case_score(
        criteria=[Criterion(a, p) for a, p in RUBRIC], hits=[True, False, False, False]
    ).score
    judge_a = case_score(
        criteria=[Criterion(a, p) for a, p in RUBRIC], hits=[True, True, False, False]
    ).score
    differences = sorted(j - g for g, j in zip(cases["gold"], cases["judge"], strict=True))
    assert differences == pytest.approx([0, 0, 0, 0, judge_a - gold_a, judge_a - gold_a])
    assert cases["bland_altman"]["mean_difference"] == pytest.approx((judge_a - gold_a) / 3)
    assert cases["icc"]["n"] == 6 and -1 <= cases["icc"]["value"] <= 1


def test_catastrophic_recall_alone_and_undefined_when_no_catastrophe():
    gold = [[[H, M, M, H]], [[H, M, M, M]]]
    report = report_compute(
        data=study(gold_rows=gold, judges={"j": [H, M, M, M, H, M, M, M]}), bootstrap=BOOT
    )
    cat = report["judges"][0]["catastrophic"]
    assert cat["gold_hits"] == 1 and cat["missed"] == 1 and cat["recall_hit"]["value"] == 0.0
    quiet = report_compute(
        data=study(gold_rows=[[[H, M, M, M]], [[M, M, M, M]]], judges={"j": [H, M, M, M] * 2}),
        bootstrap=BOOT,
    )["judges"][0]["catastrophic"]
    assert quiet["recall_hit"]["value"] is None and "hit" in quiet["recall_hit"]["reason"]


def test_ties_and_missing_gold_are_counted_not_guessed():
    gold = np.array([[[H, M, M, M]], [[MISSING] * 4]])
    ratings = np.full((8, 3), MISSING)
    ratings[:4] = np.array([H, M, M, M])[:, None]
    ratings[4:, 0] = [H, H, M, M]
    ratings[4:, 1] = [M, H, M, H]  # split 1/1 on criteria 0 and 3: two ties
    data = study(gold_rows=gold, judges={"j": [H, M, M, M] * 2}, ratings=ratings)
    report = report_compute(data=data, bootstrap=BOOT)
    counts = report["counts"]
    assert counts["ties"] == 2 and counts["items_with_gold"] == 4
    assert counts["units_complete"] == 1 and counts["units_incomplete"] == 1
    # Items rated twice and thrice: Fleiss' κ is undefined and says why.
    assert report["experts"]["fleiss_kappa"]["value"] is None
    assert "number of ratings" in report["experts"]["fleiss_kappa"]["reason"]
    # The unit without gold is not scored on either side.
    assert report["judges"][0]["score_effect"]["models"][0]["cases"] == 1


def test_misaligned_arrays_are_refused():
    data = study(gold_rows=[[[H, M, M, M]], [[H, M, M, M]]], judges={"j": [H] * 7 + [M]})
    bad = JudgeLabels("short", (1,), np.array([H, M]), 0)
    with pytest.raises(ValueError, match="short"):
        report_compute(data=data.__class__(**{**data.__dict__, "judges": (bad,)}), bootstrap=BOOT)


def test_csv_rows_have_the_header_width_and_seed():
    data = study(gold_rows=[[[H, M, M, M]], [[H, H, M, M]]], judges={"=HYPERLINK()": [H] * 8})
    text = report_csv(report_compute(data=data, bootstrap=BOOT))
    lines = text.splitlines()
    assert lines[0].startswith("section,judge,group")
    assert "bootstrap,,,,seed,5" in text
    assert ",'=HYPERLINK()," in text and ",=HYPERLINK()" not in text
