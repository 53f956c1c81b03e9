"""`heartbench agreement --level`: Krippendorff's α at each level of measurement, checked against
the ``krippendorff`` package (a second implementation) on data with missing ratings; ICC(1,1)
worked by hand, balanced and not; and the labels each level takes, a bad one named by its line."""

import json
from io import StringIO

import krippendorff
import numpy as np
import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from validation.statistics.levels import (
    ICC,
    _alpha_item_tables,
    _icc_item_tables,
    alpha_statistic,
    level_reliability,
)

CATEGORIES = ["0", "1", "2", "5", "9"]
VALUES = np.array([0.0, 1, 2, 5, 9])


def _counts(seed: int) -> np.ndarray:
    """30 items, each with 0–4 ratings over the five values (some unpairable)."""
    rng = np.random.default_rng(seed)
    counts = np.zeros((30, 5))
    for row in counts:
        for _ in range(rng.integers(0, 5)):
            row[min(4, max(0, int(rng.normal(2, 1))))] += 1
    return counts


@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval", "ratio"])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_alpha_is_the_packages_at_every_level(level, seed):
    counts = _counts(seed)
    statistic = alpha_statistic(level=level, categories=CATEGORIES, values=VALUES)
    closed = float(statistic.compute(_alpha_item_tables(counts).sum(axis=0)))
    pairable = counts[counts.sum(axis=1) >= 2]
    expected = krippendorff.alpha(
        value_counts=pairable, value_domain=list(VALUES), level_of_measurement=level
    )
    assert closed == pytest.approx(expected, abs=1e-12)


def test_icc_by_hand_balanced():
    # Items (3,4,3), (7,8,9), (1,1,2), (5,6,5): grand mean 4.5; MSB = 3 × 24⅓ / 3 = 24⅓,
    # MSW = 4 / 8 = ½; ICC(1,1) = (24⅓ − ½) / (24⅓ + 2 × ½) = 143 / 152 (pingouin 0.7.0, run
    # outside the project, gives ICC1 = 0.940789 on the same table).
    ratings = [(3, 4, 3), (7, 8, 9), (1, 1, 2), (5, 6, 5)]
    values = np.arange(10.0)
    counts = np.array([[r.count(v) for v in range(10)] for r in ratings], dtype=float)
    assert float(ICC.compute(_icc_item_tables(counts, values).sum(axis=0))) == pytest.approx(
        143 / 152
    )


def test_icc_with_items_rated_by_different_numbers_of_raters():
    # (2, 4), (6, 6, 9), (1,): the single rating is left out. N = 5, I = 2, grand mean 27/5.
    # SSB = 6²/2 + 21²/3 − 27²/5 = 18 + 147 − 145.8 = 19.2 (MSB 19.2); SSW = 2 + 6 = 8 (MSW 8/3);
    # k0 = (5 − 13/5) / 1 = 2.4; ICC = (19.2 − 8/3) / (19.2 + 1.4 × 8/3).
    values = np.arange(10.0)
    counts = np.array([[r.count(v) for v in range(10)] for r in [(2, 4), (6, 6, 9), (1,)]], float)
    expected = (19.2 - 8 / 3) / (19.2 + 1.4 * 8 / 3)
    assert float(ICC.compute(_icc_item_tables(counts, values).sum(axis=0))) == pytest.approx(
        expected
    )


def test_level_reliability_gives_intervals_around_the_estimates():
    counts = _counts(4)
    found = level_reliability(
        counts=counts,
        categories=CATEGORIES,
        values=VALUES,
        level="interval",
        clusters=np.arange(30) // 3,
    )
    assert set(found) == {"krippendorff_alpha", "icc"}
    assert found["icc"].value is not None and -1 <= found["icc"].value <= 1
    ordinal = level_reliability(
        counts=counts, categories=CATEGORIES, values=VALUES, level="ordinal", clusters=np.arange(30)
    )
    assert set(ordinal) == {"krippendorff_alpha"}  # no ICC for ranks


def run(*args: str) -> dict:
    out = StringIO()
    call_command("agreement", *args, stdout=out)
    return json.loads(out.getvalue())


def write(tmp_path, rows: list[str]) -> str:
    path = tmp_path / "ratings.csv"
    path.write_text("unit,item,rater,label\n" + "\n".join(rows) + "\n", encoding="utf-8")
    return str(path)


ROWS = [
    f"u{u},i,r{r},{v}"
    for u, row in enumerate([(3, 4, 3), (7, 8, 9), (1, 1, 2), (5, 6, 5)])
    for r, v in enumerate(row)
]


def test_the_command_reports_alpha_at_the_level_and_the_icc(tmp_path):
    path = write(tmp_path, ROWS)
    interval = run("--ratings", path, "--level", "interval", "--resamples", "200")
    raters = interval["raters"]
    assert raters["level"] == "interval" and raters["icc"] == pytest.approx(143 / 152)
    ci = raters["ci95"]["icc"]
    assert ci["low"] < raters["icc"] < ci["high"]
    data = np.array([[3, 7, 1, 5], [4, 8, 1, 6], [3, 9, 2, 5]], dtype=float)
    for level in ("interval", "ratio", "ordinal"):
        found = run("--ratings", path, "--level", level, "--resamples", "200")["raters"]
        expected = krippendorff.alpha(reliability_data=data, level_of_measurement=level)
        assert found["krippendorff_alpha"] == pytest.approx(expected), level
        assert found["ci95"]["krippendorff_alpha"]["method"]
        assert "fleiss_kappa" in found["ci95"]  # the categorical figures keep their intervals
    declared = ",".join(str(v) for v in range(1, 10))  # nominal reads 1 and 0 as hit and miss
    nominal = run("--ratings", path, "--categories", declared, "--resamples", "200")["raters"]
    assert nominal["level"] == "nominal" and "icc" not in nominal
    expected = krippendorff.alpha(reliability_data=data, level_of_measurement="nominal")
    assert nominal["krippendorff_alpha"] == pytest.approx(expected)


def test_ordinal_words_take_their_declared_order(tmp_path):
    words = {1: "low", 2: "mid", 3: "high"}
    rows = [
        f"u{u},i,r{r},{words[v]}"
        for u, row in enumerate([(1, 2, 1), (3, 3, 2), (1, 1, 1), (2, 3, 3)])
        for r, v in enumerate(row)
    ]
    path = write(tmp_path, rows)
    found = run(
        "--ratings",
        path,
        "--level",
        "ordinal",
        "--categories",
        "low,mid,high",
        "--resamples",
        "200",
    )
    data = np.array([[1, 3, 1, 2], [2, 3, 1, 3], [1, 2, 1, 3]], dtype=float)
    expected = krippendorff.alpha(reliability_data=data, level_of_measurement="ordinal")
    assert found["raters"]["krippendorff_alpha"] == pytest.approx(expected)


@pytest.mark.parametrize(
    ("level", "label", "reason"),
    [
        ("interval", "high", "label 'high' is not a number (--level interval)"),
        ("interval", "nan", "label 'nan' is not a number"),
        ("ratio", "-2", "label '-2' is negative: ratio data never is"),
        (
            "ordinal",
            "mid",
            "is not a number (--level ordinal); declare the order with --categories",
        ),
    ],
)
def test_a_label_the_level_refuses_names_its_line(tmp_path, level, label, reason):
    rows = [*ROWS[:4], ROWS[4].rsplit(",", 1)[0] + f",{label}", *ROWS[5:]]
    path = write(tmp_path, rows)
    with pytest.raises(CommandError) as refused:
        run("--ratings", path, "--level", level)
    assert refused.value.returncode == 2
    assert str(refused.value) == f"{path}:6: {reason}" or str(refused.value).startswith(
        f"{path}:6: "
    )
    assert reason in str(refused.value)


def test_categories_are_refused_with_numbers(tmp_path):
    with pytest.raises(CommandError, match="with --level interval the labels are numbers"):
        run("--ratings", write(tmp_path, ROWS), "--level", "interval", "--categories", "1,2")
