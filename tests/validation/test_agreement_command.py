"""`heartbench agreement`: hand-worked figures on small CSV files, and line-numbered errors."""

import json
import subprocess
import sys
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

DATA = Path(__file__).parent / "data"
ROOT = Path(__file__).resolve().parents[2]


def run(*args: str) -> str:
    out = StringIO()
    call_command("agreement", *args, "--resamples", "200", stdout=out)
    return out.getvalue()


def summary(*args: str) -> dict:
    return json.loads(run(*args))


def test_json_has_the_issue_keys_and_hand_worked_figures():
    result = summary("--ratings", str(DATA / "ratings.csv"), "--judge", str(DATA / "judge.csv"))
    raters = result["raters"]
    for key in ("percent_agreement", "krippendorff_alpha", "fleiss_kappa", "gwet_ac1", "n_items"):
        assert key in raters
    assert raters["n_items"] == 6
    # Per item, share of agreeing pairs: 1, 1/3, 0, 1, 1/3, 1/3 → mean 0.5.
    assert raters["percent_agreement"] == pytest.approx(0.5)
    # u2/c1 has two ratings, the others three.
    assert raters["fleiss_kappa"] is None
    assert "number of ratings" in raters["reasons"]["fleiss_kappa"]

    # u2/c1 is hit/miss with C missing: a tie, excluded.
    assert result["gold"] == {
        "n": 5,
        "ties": 1,
        "unanimous": 2,
        "split": 3,
        "single_rating": 0,
        "unrated": 0,
    }

    judge = result["judge_vs_gold"]
    for key in ("n", "agreement", "cohen_kappa", "gwet_ac1", "pabak", "confusion", "ci95"):
        assert key in judge
    assert judge["n"] == 5
    assert judge["agreement"] == pytest.approx(3 / 5)
    # Rows gold (hit, miss), columns judge: p_e = (2·2 + 3·3)/25 = 0.52 → κ = 0.08/0.48.
    assert judge["confusion"]["matrix"] == [[1, 1], [1, 2]]
    assert judge["confusion"]["labels"] == ["hit", "miss"]
    assert judge["cohen_kappa"] == pytest.approx(0.08 / 0.48)
    assert judge["pabak"] == pytest.approx(0.2)
    # u9/c1 was judged but never rated.
    assert judge["judge_items_not_rated"] == 1
    assert set(judge["ci95"]["agreement"]) >= {"low", "high", "method"}

    experts = result["judge_vs_experts"]
    assert set(experts) >= {"balanced_f1", "expert_balanced_f1"}
    assert set(experts["expert_balanced_f1"]) == {"A", "B", "C"}
    assert experts["n_pairs"] == 17  # 18 expert labels but one missing
    assert result["bootstrap"]["clusters"] == 3
    assert result["bootstrap"]["resamples"] == 200


def test_without_judge_only_raters_and_gold():
    result = summary("--ratings", str(DATA / "ratings.csv"))
    assert result["judge_vs_gold"] is None
    assert result["judge_vs_experts"] is None
    assert result["gold"]["n"] == 5


def test_single_rater_is_the_gold():
    result = summary(
        "--ratings", str(DATA / "single_rater.csv"), "--judge", str(DATA / "judge.csv")
    )
    assert result["gold"]["n"] == 5 and result["gold"]["single_rating"] == 5
    for key in ("percent_agreement", "krippendorff_alpha", "fleiss_kappa", "gwet_ac1"):
        assert result["raters"][key] is None
        assert result["raters"]["reasons"][key]
    # Gold = A. Gold hit: u1/c1 (judge hit), u2/c2 (judge miss); gold miss: u1/c2, u2/c1
    # (judge hit), u3/c1 (judge miss).
    assert result["judge_vs_gold"]["confusion"]["matrix"] == [[1, 1], [2, 1]]
    assert result["judge_vs_experts"]["expert_balanced_f1"]["A"] is None


def test_table_format():
    text = run(
        "--ratings",
        str(DATA / "ratings.csv"),
        "--judge",
        str(DATA / "judge.csv"),
        "--format",
        "table",
    )
    assert "Raters: 3 on 6 items" in text
    assert "fleiss_kappa" in text and "number of ratings" in text
    assert "Gold (majority): 5 items, 1 ties excluded" in text
    assert "confusion (rows gold, columns judge)" in text
    assert "seed 20251226" in text


BAD_RATINGS = [
    ("", 1, "empty file"),
    ("unit,item,label\nu1,c1,hit\n", 1, "missing: ['rater']"),
    ("unit,item,rater,label,notes\n", 1, "unexpected: ['notes']"),
    ("unit,item,rater,label\n", 1, "no ratings"),
    (
        "unit,item,rater,label\nu1,c1,A,hit\nu1,c1,A,miss\n",
        3,
        "already labelled item 'c1' of unit 'u1' on line 2",
    ),
    ("unit,item,rater,label\nu1,c1,A,hit\n\nu1,c2,,hit\n", 4, "empty rater"),
    ("unit,item,rater,label\nu1,c1,A,hit,extra\n", 2, "5 fields where the header has 4"),
    ('unit,item,rater,label\nu1,"c1\nstill c1",A,hit\nu1,c2,A\n', 4, "3 fields"),
]


@pytest.mark.parametrize(("content", "line", "reason"), BAD_RATINGS)
def test_bad_ratings_file_names_the_line_and_reason(tmp_path, content, line, reason):
    path = tmp_path / "ratings.csv"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(CommandError) as error:
        run("--ratings", str(path))
    assert f"ratings.csv:{line}: " in str(error.value)
    assert reason in str(error.value)


def test_not_utf8_names_the_line(tmp_path):
    path = tmp_path / "ratings.csv"
    path.write_bytes("unit,item,rater,label\nu1,c1,A,hit\nu1,c2,A,命中\n".encode("gbk"))
    with pytest.raises(CommandError, match=r"ratings.csv:3: not UTF-8"):
        run("--ratings", str(path))


def test_bad_judge_file(tmp_path):
    path = tmp_path / "judge.csv"
    path.write_text("unit,item,label\nu1,c1,hit\nu1,c1,miss\n", encoding="utf-8")
    with pytest.raises(CommandError, match=r"judge.csv:3: item 'c1' of unit 'u1' already"):
        run("--ratings", str(DATA / "ratings.csv"), "--judge", str(path))


def test_missing_file(tmp_path):
    with pytest.raises(CommandError, match="cannot read"):
        run("--ratings", str(tmp_path / "absent.csv"))


def test_utf8_bom_and_chinese_labels_are_fine(tmp_path):
    path = tmp_path / "ratings.csv"
    path.write_text(
        "\ufeffunit,item,rater,label\n例1,标准1,甲,命中\n例1,标准1,乙,命中\n例1,标准2,甲,未命中\n"
        "例1,标准2,乙,命中\n",
        encoding="utf-8",
    )
    result = summary("--ratings", str(path))
    # 命中/未命中 is one of the binary spellings (tests/validation/test_agreement_labels.py).
    assert result["categories"] == ["hit", "miss"]
    assert result["label_spellings"]["ratings"] == "命中/未命中"
    assert result["raters"]["percent_agreement"] == pytest.approx(0.5)


def test_exit_status_and_nothing_on_stdout_for_a_bad_file(tmp_path):
    path = tmp_path / "ratings.csv"
    path.write_text("unit,item,rater,label\nu1,c1,,hit\n", encoding="utf-8")
    process = subprocess.run(
        [sys.executable, "manage.py", "agreement", "--ratings", str(path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert process.returncode != 0
    assert process.stdout == ""
    assert "ratings.csv:2: empty rater" in process.stderr
