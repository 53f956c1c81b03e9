"""The human baseline: each expert against the other two, the judge on the same pairs.

The figures of the hand example are counted below, pair by pair, from the table.
"""

import json
from io import StringIO

import numpy as np
import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from validation.statistics import (
    MISSING,
    BootstrapSettings,
    RatingRecord,
    experts_against_others,
    gold_majority,
    judge_against_others,
    judge_noninferiority,
    others_references,
    ratings_build,
)

# unit, item: labels of A, B, C (None = not rated) and the judge's label.
TABLE = {
    ("u1", "c1"): ("hit", "hit", "hit", "hit"),
    ("u1", "c2"): ("miss", "miss", "miss", "miss"),
    ("u2", "c1"): ("hit", "hit", "miss", "hit"),
    ("u2", "c2"): ("miss", "miss", "hit", "hit"),
    ("u3", "c1"): ("hit", "miss", "miss", "miss"),
    ("u3", "c2"): ("miss", "miss", "miss", "hit"),
    ("u4", "c1"): ("hit", "hit", "hit", "hit"),
    ("u4", "c2"): ("miss", "hit", "miss", "miss"),
    ("u4", "c3"): ("hit", "hit", None, "hit"),  # two ratings: skipped for everyone
}
# Pairs (item, r) with the reference of the other two (h = hit, m = miss), r's label, judge's:
#   A: u1c1 h h h, u1c2 m m m, u3c1 m h m, u3c2 m m h, u4c1 h h h      → A 4/5, judge 4/5
#   B: u1c1 h h h, u1c2 m m m, u3c2 m m h, u4c1 h h h, u4c2 m h m      → B 4/5, judge 4/5
#   C: u1c1 h h h, u1c2 m m m, u2c1 h m h, u2c2 m h h, u3c2 m m h, u4c1 h h h
#                                                                      → C 4/6, judge 4/6
# Skipped: u2c1 and u2c2 for A and B, u3c1 for B and C, u4c2 for A and C (the others split).


def _records():
    for (unit, item), (*experts, _judge) in TABLE.items():
        for rater, label in zip("ABC", experts, strict=True):
            yield RatingRecord(unit, item, rater, label)


def _ratings():
    return ratings_build(records=_records())


def _judge(ratings):
    return ratings.encode(labels={key: row[3] for key, row in TABLE.items()})


def _figures(result):
    return (result.n, result.agreement.value, result.cohen_kappa.value, result.balanced_f1.value)


def test_the_reference_is_the_agreeing_label_of_the_other_two():
    hit, miss = 0, 1
    codes = np.array(
        [
            [hit, hit, miss],  # A and B are each skipped (the others split); C's is hit
            [miss, miss, miss],
            [hit, hit, MISSING],  # two ratings: no reference
            [hit, MISSING, MISSING],
        ]
    )
    assert others_references(codes=codes).tolist() == [
        [MISSING, MISSING, hit],
        [miss, miss, miss],
        [MISSING, MISSING, MISSING],
        [MISSING, MISSING, MISSING],
    ]


def test_experts_against_the_other_two_by_hand():
    result = experts_against_others(ratings=_ratings())
    # A and B: rows reference (hit, miss), columns the rater: [[2, 0], [1, 2]];
    # p_e = (2·3 + 3·2)/25 → κ = (20 − 12)/(25 − 12); F1 of each class 4/5.
    assert _figures(result.by_rater["A"]) == pytest.approx((5, 4 / 5, 8 / 13, 4 / 5))
    assert _figures(result.by_rater["B"]) == pytest.approx((5, 4 / 5, 8 / 13, 4 / 5))
    # C: [[2, 1], [1, 2]], p_e = 1/2 → κ = 1/3; F1 of each class 4/6.
    assert _figures(result.by_rater["C"]) == pytest.approx((6, 4 / 6, 1 / 3, 4 / 6))
    # Pooled: [[6, 1], [3, 6]]; p_e = (7·9 + 9·7)/256 → κ = (192 − 126)/(256 − 126);
    # F1 hit 12/16, miss 12/16.
    assert _figures(result.pooled) == pytest.approx((16, 12 / 16, 66 / 130, 3 / 4))


def test_judge_on_the_same_pairs_by_hand():
    ratings = _ratings()
    result = judge_against_others(ratings=ratings, judge=_judge(ratings))
    assert _figures(result.by_rater["A"]) == pytest.approx((5, 4 / 5, 8 / 13, 4 / 5))
    # C's references against the judge: [[3, 0], [2, 1]]; p_e = (3·5 + 3·1)/36;
    # F1 hit 6/8, miss 2/4.
    assert _figures(result.by_rater["C"]) == pytest.approx(
        (6, 4 / 6, (24 - 18) / (36 - 18), (6 / 8 + 2 / 4) / 2)
    )
    # Pooled [[7, 0], [4, 5]]: p_e = (7·11 + 9·5)/256 → κ = (192 − 122)/(256 − 122);
    # F1 hit 14/18, miss 10/14.
    assert _figures(result.pooled) == pytest.approx(
        (16, 12 / 16, 70 / 134, (14 / 18 + 10 / 14) / 2)
    )


def test_noninferiority_difference_and_its_paired_interval():
    ratings = _ratings()
    settings = BootstrapSettings(resamples=300, seed=7)
    result = judge_noninferiority(ratings=ratings, judge=_judge(ratings), bootstrap=settings)
    assert result.n == 16
    # 47/63 − 3/4
    assert result.difference == pytest.approx(-1 / 252)
    assert result.interval.clusters == 4  # the units
    assert result.interval.low <= result.difference <= result.interval.high
    assert result.passed == (result.interval.low >= -0.05)
    again = judge_noninferiority(ratings=ratings, judge=_judge(ratings), bootstrap=settings)
    assert again.interval == result.interval  # seeded


def test_noninferiority_uses_only_the_pairs_the_judge_labelled():
    ratings = _ratings()
    judge = _judge(ratings)
    judge[ratings.items.index(("u2", "c1"))] = MISSING  # C's pair u2c1 leaves both sides
    result = judge_noninferiority(
        ratings=ratings, judge=judge, bootstrap=BootstrapSettings(resamples=200)
    )
    assert result.n == 15


@pytest.mark.parametrize("seed", range(5))
def test_a_judge_copying_the_references_agrees_fully_and_is_not_inferior(seed):
    rng = np.random.default_rng(seed)
    records = [
        RatingRecord(f"u{unit}", f"c{item}", rater, rng.choice(["hit", "miss"], p=[0.3, 0.7]))
        for unit in range(12)
        for item in range(4)
        for rater in ("A", "B", "C")
    ]
    ratings = ratings_build(records=records)
    # Wherever the two others agree they are the majority of three, so gold copies them.
    judge = gold_majority(codes=ratings.codes, n_categories=ratings.n_categories).codes
    against = judge_against_others(ratings=ratings, judge=judge)
    assert against.pooled.agreement.value == 1.0
    assert against.pooled.n == experts_against_others(ratings=ratings).pooled.n
    result = judge_noninferiority(
        ratings=ratings, judge=judge, bootstrap=BootstrapSettings(resamples=200, seed=seed)
    )
    assert result.difference >= 0
    assert result.passed is True


def test_not_enough_data_gives_null_figures():
    ratings = ratings_build(
        records=[RatingRecord("u1", "c1", "A", "hit"), RatingRecord("u1", "c1", "B", "miss")]
    )
    judge = ratings.encode(labels={("u1", "c1"): "hit"})
    result = judge_noninferiority(ratings=ratings, judge=judge, bootstrap=BootstrapSettings())
    assert (result.n, result.difference, result.interval, result.passed) == (0, None, None, None)
    assert result.reason.startswith("judge: no item")
    assert experts_against_others(ratings=ratings).pooled.agreement.value is None


def _write(path, rows):
    path.write_text("\n".join(",".join(row) for row in rows) + "\n", encoding="utf-8")
    return str(path)


def _csv_files(tmp_path):
    ratings = _write(
        tmp_path / "ratings.csv",
        [("unit", "item", "rater", "label")]
        + [(u, i, r, label) for u, i, r, label in _records() if label is not None],
    )
    judge = _write(
        tmp_path / "judge.csv",
        [("unit", "item", "label")] + [(u, i, row[3]) for (u, i), row in TABLE.items()],
    )
    return ratings, judge


def _agreement(*args):
    out = StringIO()
    call_command("agreement", *args, "--resamples", "200", stdout=out)
    return json.loads(out.getvalue())


def test_cli_json_keys_end_to_end(tmp_path):
    ratings, judge = _csv_files(tmp_path)
    result = _agreement("--ratings", ratings, "--judge", judge)
    experts = result["experts_vs_others"]
    assert set(experts) == {"pooled", "raters"}
    assert set(experts["raters"]) == {"A", "B", "C"}
    assert experts["pooled"] == pytest.approx(
        {"n": 16, "agreement": 0.75, "kappa": 66 / 130, "macro_f1": 0.75}
    )
    judge_figures = result["judge_vs_others"]
    assert judge_figures["raters"]["B"] == pytest.approx(
        {"n": 5, "agreement": 0.8, "kappa": 8 / 13, "macro_f1": 0.8}
    )
    assert judge_figures["pooled"]["n"] == 16
    noninferiority = result["judge_noninferiority"]
    assert set(noninferiority) == {"n", "difference", "ci95", "delta", "passed", "status"}
    assert noninferiority["difference"] == pytest.approx(-1 / 252)
    assert noninferiority["delta"] == -0.05
    assert noninferiority["passed"] == (noninferiority["ci95"]["low"] >= -0.05)

    loose = _agreement("--ratings", ratings, "--judge", judge, "--noninferiority-delta", "-1")
    assert loose["judge_noninferiority"]["delta"] == -1
    assert loose["judge_noninferiority"]["passed"] is True


def test_cli_table_shows_the_baseline(tmp_path):
    ratings, judge = _csv_files(tmp_path)
    out = StringIO()
    call_command("agreement", "--ratings", ratings, "--judge", judge, "--format", "table",
                 "--resamples", "200", stdout=out)  # fmt: skip
    text = out.getvalue()
    assert "Experts against the agreeing label of the other two experts: 16 pairs" in text
    assert "Judge − experts (pooled macro-F1): -0.0040" in text


def test_cli_without_judge_has_only_the_experts_baseline(tmp_path):
    ratings, _ = _csv_files(tmp_path)
    result = _agreement("--ratings", ratings)
    assert result["experts_vs_others"]["pooled"]["n"] == 16
    assert result["judge_vs_others"] is None
    assert result["judge_noninferiority"] is None


def test_cli_refuses_a_positive_margin(tmp_path):
    ratings, _ = _csv_files(tmp_path)
    with pytest.raises(CommandError, match="noninferiority-delta"):
        _agreement("--ratings", ratings, "--noninferiority-delta", "0.1")
