"""The figures that go with κ and PABAK on the judge's 2×2 table against gold: Byrt, Bishop &
Carlin's prevalence and bias indices, and McNemar's paired test of the judge's over- against
its under-calling (exact while the discordant pairs are few), pinned by hand."""

import json
import math

import pytest

from validation.statistics.pairwise import two_by_two_indices


def test_few_discordant_pairs_take_the_exact_binomial_test():
    # Rows gold (hit, miss), columns judge: a=40, b=3, c=9, d=48, n=100.
    figures = two_by_two_indices(confusion=[[40, 3], [9, 48]])
    assert figures["prevalence_index"] == pytest.approx((40 - 48) / 100)
    assert figures["bias_index"] == pytest.approx((3 - 9) / 100)
    # 12 discordant pairs: p = 2 P(X ≤ 3), X ~ Bin(12, ½) = 2 (1 + 12 + 66 + 220) / 4096.
    assert figures["mcnemar"] == {
        "b": 3, "c": 9, "p_value": pytest.approx(598 / 4096), "method": "exact",
    }  # fmt: skip


def test_many_discordant_pairs_take_the_corrected_chi_square():
    # b=20, c=5: χ² = (|20 − 5| − 1)² / 25 = 7.84 on 1 df; p = erfc(√(7.84 / 2)).
    mcnemar = two_by_two_indices(confusion=[[10, 20], [5, 65]])["mcnemar"]
    assert mcnemar["p_value"] == pytest.approx(math.erfc(math.sqrt(7.84 / 2)), rel=1e-9)
    assert mcnemar["method"] == "chi-square, continuity-corrected"


def test_no_disagreement_at_all_is_no_evidence_either_way():
    assert two_by_two_indices(confusion=[[5, 0], [0, 5]])["mcnemar"]["p_value"] == 1.0


def test_other_shapes_and_empty_tables_have_none():
    assert two_by_two_indices(confusion=[[1, 0, 0], [0, 1, 0], [0, 0, 1]]) is None
    assert two_by_two_indices(confusion=[[0, 0], [0, 0]]) is None


def test_the_agreement_command_reports_them_with_the_judge(tmp_path):
    from django.core.management import call_command

    ratings = tmp_path / "ratings.csv"
    judge = tmp_path / "judge.csv"
    rows = ["unit,item,rater,label"]
    labels = ["unit,item,label"]
    for item in range(6):
        for rater in "ABC":
            rows.append(f"u{item},i{item},{rater},{'hit' if item < 3 else 'miss'}")
        labels.append(f"u{item},i{item},{'hit' if item < 2 else 'miss'}")
    ratings.write_text("\n".join(rows) + "\n", encoding="utf-8")
    judge.write_text("\n".join(labels) + "\n", encoding="utf-8")
    out = tmp_path / "out.json"
    with out.open("w", encoding="utf-8") as stream:
        call_command("agreement", "--ratings", str(ratings), "--judge", str(judge),
                     "--format", "json", stdout=stream)  # fmt: skip
    vs_gold = json.loads(out.read_text(encoding="utf-8"))["judge_vs_gold"]
    # Gold hit on i0–i2, the judge on i0–i1: b (gold hit, judge miss) = 1, c = 0.
    assert vs_gold["mcnemar"] == {"b": 1, "c": 0, "p_value": 1.0, "method": "exact"}
    assert vs_gold["prevalence_index"] == pytest.approx((2 - 3) / 6)
    assert vs_gold["bias_index"] == pytest.approx(1 / 6)
