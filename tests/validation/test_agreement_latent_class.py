"""`heartbench agreement` carries the latent-class (Dawid–Skene) estimate: in the JSON as
``latent_class``, in the table as a few lines, with the judge held out unless asked."""

import json
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command

from tests.builders.latent_class import JUDGE, ROWS, XCHECK_HELD_OUT

DATA = Path(__file__).parent / "data"


def run(*args: str) -> str:
    out = StringIO()
    call_command("agreement", *args, "--resamples", "200", stdout=out)
    return out.getvalue()


def write_files(tmp_path: Path, hit: str = "hit", miss: str = "miss") -> tuple[Path, Path]:
    """The cross-checked dataset of the statistics test as the command's two CSV files: one
    unit per four items (so the bootstrap has ten units to resample)."""
    ratings = ["unit,item,rater,label"]
    judge = ["unit,item,label"]
    for index, (row, verdict) in enumerate(zip(ROWS, JUDGE, strict=True)):
        unit, item = f"u{index // 4}", f"c{index % 4}"
        for rater, c in enumerate(row):
            label = "" if c == "." else hit if c == "1" else miss
            ratings.append(f"{unit},{item},r{rater},{label}")
        judge.append(f"{unit},{item},{hit if verdict == '1' else miss}")
    paths = tmp_path / "ratings.csv", tmp_path / "judge.csv"
    for path, lines in zip(paths, (ratings, judge), strict=True):
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return paths


def test_json_has_latent_class_with_named_intervals(tmp_path):
    ratings, judge = write_files(tmp_path)
    section = json.loads(run("--ratings", str(ratings), "--judge", str(judge)))["latent_class"]
    assert section["judge_mode"] == "held_out"
    assert "Dawid-Skene" in section["method"] and "EM" in section["method"]
    assert "held out" in section["method"]
    assert section["positive"] == "hit" and section["converged"] is True
    assert section["iterations"] > 1
    assert set(section["raters"]) == {"r0", "r1", "r2", "r3"}
    # The same figures as the independent implementation (the statistics test).
    for (se, sp), rater in zip(XCHECK_HELD_OUT["raters"], ("r0", "r1", "r2", "r3"), strict=True):
        figures = section["raters"][rater]
        assert figures["sensitivity"]["estimate"] == pytest.approx(se, abs=1e-7)
        assert figures["specificity"]["estimate"] == pytest.approx(sp, abs=1e-7)
    assert section["judge"]["sensitivity"]["estimate"] == pytest.approx(
        XCHECK_HELD_OUT["judge"][0], abs=1e-7
    )
    assert section["prevalence"]["estimate"] == pytest.approx(XCHECK_HELD_OUT["prevalence"])
    for figure in [
        section["prevalence"],
        section["judge"]["sensitivity"],
        section["judge"]["specificity"],
        *(r[k] for r in section["raters"].values() for k in ("sensitivity", "specificity")),
    ]:
        ci = figure["ci95"]
        assert set(ci) >= {"low", "high", "method"}
        assert ci["method"] and ci["low"] < figure["estimate"] <= ci["high"]
    assert len(section["items"]) == 40
    assert section["items"][0]["posterior"] == pytest.approx(
        XCHECK_HELD_OUT["posterior[:6]"][0], abs=1e-7
    )
    assert 0 < section["gold_expected_accuracy"] <= 1


def test_judge_as_a_rater_and_the_table_line(tmp_path):
    ratings, judge = write_files(tmp_path, hit="1", miss="0")
    args = ("--ratings", str(ratings), "--judge", str(judge), "--latent-judge", "rater")
    section = json.loads(run(*args))["latent_class"]
    assert section["judge_mode"] == "rater" and "one more rater" in section["method"]
    assert set(section["raters"]) == {"r0", "r1", "r2", "r3"}  # the judge is not an expert
    assert section["judge"]["sensitivity"]["estimate"] == pytest.approx(0.7356069625, abs=1e-7)
    text = run(*args, "--format", "table")
    assert "Latent class (Dawid-Skene EM, judge as a rater): 40 items" in text
    assert "  judge: sensitivity 0.7356 [" in text
    assert "experts' specificity:" in text


def test_declared_scheme_keeps_hit_the_positive_class(tmp_path):
    ratings, judge = write_files(tmp_path, hit="命中", miss="未命中")
    result = json.loads(
        run("--ratings", str(ratings), "--judge", str(judge), "--categories", "未命中,命中")
    )
    section = result["latent_class"]
    assert section["positive"] == "命中"
    assert section["prevalence"]["estimate"] == pytest.approx(XCHECK_HELD_OUT["prevalence"])


def test_too_few_raters_says_why(tmp_path):
    section = json.loads(run("--ratings", str(DATA / "single_rater.csv")))["latent_class"]
    assert section["raters"] == {} and section["judge"] is None
    assert "at least 3" in section["reason"]
    text = run("--ratings", str(DATA / "single_rater.csv"), "--format", "table")
    assert "Latent class (Dawid-Skene EM, judge held out): not estimated" in text
