"""`benchmark.saturation` on hand-built verdicts: saturated criteria, too-easy and hard cases."""

import json

import pytest

from benchmark.saturation import (
    DEFAULT_HARD_QUANTILE,
    SaturationError,
    saturation_compute,
)
from benchmark.scoring import Criterion, RubricLayout, case_score

# Case "a": warmth +3, warmth -5 (harmful), curiosity +2, catastrophic.
CASE_A = [
    Criterion("warmth", 3),
    Criterion("warmth", -5),
    Criterion("curiosity", 2),
    Criterion("catastrophic", None),
]
# Case "b": one warmth criterion.
CASE_B = [Criterion("warmth", 4)]
LAYOUT = RubricLayout.build([CASE_A, CASE_B])
IDS = ["a", "b"]


def _compute(hits, **options):
    return saturation_compute(question_ids=IDS, layout=LAYOUT, hits=hits, **options)


def test_a_positive_criterion_every_model_hit_is_saturated_and_undiscriminating():
    result = _compute(
        {
            "m1": [True, False, True, False, True],
            "m2": [True, False, False, False, False],
            "m3": [True, False, True, False, True],
        }
    )
    first = result.criteria[0]
    assert (first.question_id, first.position, first.hit_rate) == ("a", 0, 1.0)
    assert first.saturated and first.discrimination is None
    curiosity = result.criteria[2]
    assert curiosity.hit_rate == pytest.approx(2 / 3) and not curiosity.saturated
    # m1 and m3 hit it and score higher overall than m2: a positive point-biserial.
    assert curiosity.discrimination > 0
    assert [c.position for c in result.criteria] == [0, 1, 2, 3, 0]
    assert result.criteria[4].question_id == "b" and result.criteria[4].saturated is False


def test_a_negative_or_catastrophic_criterion_every_model_hit_is_never_saturated():
    every = [True, True, True, True, True]
    result = _compute({"m1": every, "m2": every})
    harmful, catastrophic = result.criteria[1], result.criteria[3]
    assert harmful.hit_rate == 1.0 and not harmful.saturated
    assert catastrophic.hit_rate == 1.0 and not catastrophic.saturated
    assert result.criteria[0].saturated and result.criteria[4].saturated


def test_a_harmful_criterion_that_separates_the_models_discriminates_negatively():
    result = _compute(
        {
            "good": [True, False, True, False, True],
            "bad": [True, True, True, False, False],
        }
    )
    assert result.criteria[1].discrimination == pytest.approx(-1.0)
    assert result.criteria[4].discrimination == pytest.approx(1.0)


def test_mean_score_is_the_leaderboards_question_score_averaged_over_models():
    hits = {"m1": [True, False, False, False, True], "m2": [False, True, True, False, False]}
    result = _compute(hits)
    expected_a = (
        case_score(criteria=CASE_A, hits=hits["m1"][:4]).score
        + case_score(criteria=CASE_A, hits=hits["m2"][:4]).score
    ) / 2
    assert result.cases[0].mean_score == pytest.approx(expected_a)
    assert result.cases[1].mean_score == pytest.approx(50.0)


def test_a_catastrophic_hit_zeroes_the_case_as_in_paper_scoring():
    result = _compute({"m1": [True, False, True, True, True]})
    assert result.cases[0].mean_score == 0.0


def test_too_easy_is_strictly_above_the_threshold():
    # Case b: one model hits (100), the other misses (0): mean 50.
    hits = {"m1": [True, False, True, False, True], "m2": [True, False, True, False, False]}
    assert _compute(hits, easy_threshold=50).cases[1].too_easy is False
    assert _compute(hits, easy_threshold=49.9).cases[1].too_easy is True
    assert _compute(hits, easy_threshold=80).cases[0].too_easy is True  # a scores 100


def test_every_case_tied_at_the_quantile_is_proposed_hard():
    # Ten cases: mean scores 0 (four cases), 50 (two), 100 (four).
    ids = [f"q{i}" for i in range(10)]
    layout = RubricLayout.build([[Criterion("warmth", 1)] for _ in ids])
    m1 = [False] * 4 + [True, True] + [True] * 4
    m2 = [False] * 4 + [False, False] + [True] * 4
    result = saturation_compute(
        question_ids=ids, layout=layout, hits={"m1": m1, "m2": m2}, hard_quantile=0.3
    )
    # The 0.3 quantile is the fourth-smallest mean score, 0: all four tied cases, 40%.
    assert result.hard_cutoff == 0.0
    assert [c.proposed_hard for c in result.cases] == [True] * 4 + [False] * 6
    assert result.summary()["hard_share"] == pytest.approx(0.4)
    wider = saturation_compute(
        question_ids=ids, layout=layout, hits={"m1": m1, "m2": m2}, hard_quantile=0.5
    )
    assert wider.hard_cutoff == 50.0
    assert sum(c.proposed_hard for c in wider.cases) == 6


def test_a_case_with_an_error_or_a_missing_verdict_is_left_out_and_listed():
    # m2 has no usable verdict on case b: b is out of every figure, a keeps both models.
    result = _compute(
        {"m1": [True, False, True, False, True], "m2": [True, False, False, False, None]}
    )
    assert [c.question_id for c in result.cases] == ["a"]
    assert {c.question_id for c in result.criteria} == {"a"}
    assert result.summary()["excluded_cases"] == [{"question_id": "b", "models": ["m2"]}]
    assert result.summary()["cases"] == 1 and result.summary()["criteria"] == 4
    alone = _compute(
        {"m1": [True, False, True, False, False], "m2": [True, False, False, False, False]}
    )
    assert result.cases[0].mean_score == alone.cases[0].mean_score
    # m1's total is case a alone: curiosity separates m1 (hit) from m2 perfectly.
    assert result.criteria[2].discrimination == pytest.approx(1.0)


def test_no_case_scored_by_every_model_is_refused():
    with pytest.raises(SaturationError, match="no case has a met / not met verdict"):
        _compute({"m1": [None, False, True, False, True], "m2": [True, False, True, False, None]})


def test_verdicts_of_the_wrong_length_are_refused():
    with pytest.raises(SaturationError, match="4 verdicts for 5 criteria"):
        _compute({"m1": [True] * 4})


@pytest.mark.parametrize("quantile", [0, 1, -0.1, 1.5])
def test_a_quantile_outside_zero_one_is_refused(quantile):
    with pytest.raises(SaturationError, match="between 0 and 1"):
        _compute({"m1": [True] * 5}, hard_quantile=quantile)


def test_no_model_is_refused():
    with pytest.raises(SaturationError, match="no model"):
        _compute({})


def test_one_model_has_no_discrimination_anywhere():
    result = _compute({"m1": [True, False, True, False, False]})
    assert all(c.discrimination is None for c in result.criteria)
    assert result.summary()["discrimination_mean"] is None


def test_the_json_has_the_documented_keys():
    data = _compute({"m1": [True] * 5, "m2": [False] * 5}).as_dict()
    assert set(data) == {"criteria", "cases", "summary"}
    assert set(data["criteria"][0]) == {
        "question_id", "position", "hit_rate", "saturated", "discrimination",
    }  # fmt: skip
    assert set(data["cases"][0]) == {"question_id", "mean_score", "too_easy", "proposed_hard"}
    summary = data["summary"]
    assert summary["models"] == ["m1", "m2"] and summary["discrimination"] == "point-biserial"
    assert summary["cases"] == 2 and summary["criteria"] == 5
    json.dumps(data)


def test_the_default_hard_quantile_is_of_the_released_hard_share(shared_data):
    rows = [
        json.loads(line)
        for line in (shared_data / "question_all.jsonl").read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]
    share = sum(row["difficulty"] == "hard" for row in rows) / len(rows)
    assert share == pytest.approx(84 / 296)
    assert abs(DEFAULT_HARD_QUANTILE - share) < 0.05


def test_models_with_equal_mean_scores_leave_discrimination_undefined():
    layout = RubricLayout.build([[Criterion("warmth", 1)], [Criterion("curiosity", 1)]])
    result = saturation_compute(
        question_ids=["x", "y"], layout=layout, hits={"m1": [True, False], "m2": [False, True]}
    )
    assert [c.hit_rate for c in result.criteria] == [0.5, 0.5]
    assert [c.discrimination for c in result.criteria] == [None, None]
