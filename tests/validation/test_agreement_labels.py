"""`heartbench agreement` reads the usual spellings of a binary label as one scheme (1/0,
true/false, yes/no, hit/miss, met/not met, 是/否, 命中/未命中, any case), refuses a file that
mixes spellings (naming the line), and takes a declared scheme with --categories."""

import json
import subprocess
import sys
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from validation.label_spellings import LabelReader, LabelSchemeError, scheme_declare

DATA = Path(__file__).parent / "data"
ROOT = Path(__file__).resolve().parents[2]


def summary(*args: str) -> dict:
    out = StringIO()
    call_command("agreement", *args, "--resamples", "200", stdout=out)
    return json.loads(out.getvalue())


def respelled(tmp_path: Path, source: Path, hit: str, miss: str) -> Path:
    """``source`` with its hit/miss labels written as ``hit``/``miss``."""
    lines = source.read_text(encoding="utf-8").splitlines()
    out = [lines[0]]
    for line in lines[1:]:
        *keys, label = line.split(",")
        label = {"hit": hit, "miss": miss}.get(label, label)
        out.append(",".join([*keys, label]))
    path = tmp_path / f"{source.stem}-{hit}.csv"
    path.write_text("\n".join(out) + "\n", encoding="utf-8")
    return path


def figures(result: dict) -> dict:
    return {key: result[key] for key in ("raters", "gold", "judge_vs_gold", "judge_vs_experts")}


@pytest.mark.parametrize(
    ("hit", "miss"),
    [("1", "0"), ("True", "False"), ("YES", "no"), ("Met", "not_met"), ("是", "否"),
     ("命中", "未命中")],
)  # fmt: skip
def test_every_usual_spelling_gives_the_same_figures(tmp_path, hit, miss):
    reference = summary("--ratings", str(DATA / "ratings.csv"), "--judge", str(DATA / "judge.csv"))
    ratings = respelled(tmp_path, DATA / "ratings.csv", hit, miss)
    judge = respelled(tmp_path, DATA / "judge.csv", "hit", "miss")  # files may differ
    result = summary("--ratings", str(ratings), "--judge", str(judge))
    assert result["categories"] == ["hit", "miss"]
    assert figures(result) == figures(reference)
    assert result["label_spellings"]["ratings"] == f"{hit.casefold()}/{miss.casefold()}".replace(
        "_", " "
    )
    assert result["label_spellings"]["judge"] == "hit/miss"


def test_the_issue_file_one_hit_and_true_is_refused_naming_the_line(tmp_path):
    path = tmp_path / "ratings.csv"
    path.write_text("unit,item,rater,label\nu1,c1,A,1\nu1,c1,B,hit\nu1,c1,C,True\n", "utf-8")
    with pytest.raises(CommandError) as error:
        summary("--ratings", str(path))
    message = str(error.value)
    assert message.startswith(f"{path}:3: ")
    assert "'hit'" in message and "line 2" in message and "'1'" in message
    assert "\n" not in message


def test_a_binary_file_with_another_word_is_refused(tmp_path):
    path = tmp_path / "ratings.csv"
    path.write_text("unit,item,rater,label\nu1,c1,A,hit\nu1,c1,B,maybe\n", "utf-8")
    with pytest.raises(CommandError, match=r"ratings.csv:3: label 'maybe' is not a spelling"):
        summary("--ratings", str(path))


def test_free_labels_stay_a_nominal_scheme_unless_a_binary_spelling_sneaks_in(tmp_path):
    path = tmp_path / "ratings.csv"
    path.write_text("unit,item,rater,label\nu1,c1,A,good\nu1,c1,B,bad\nu1,c2,A,good\n", "utf-8")
    assert summary("--ratings", str(path))["categories"] == ["bad", "good"]
    path.write_text("unit,item,rater,label\nu1,c1,A,good\nu1,c1,B,bad\nu1,c2,A,yes\n", "utf-8")
    with pytest.raises(CommandError, match=r"ratings.csv:4: label 'yes' is a binary label"):
        summary("--ratings", str(path))


def test_the_judge_file_must_speak_the_same_scheme(tmp_path):
    judge = tmp_path / "judge.csv"
    judge.write_text("unit,item,label\nu1,c1,good\n", "utf-8")
    with pytest.raises(CommandError, match=r"judge.csv:2: label 'good' is not a spelling"):
        summary("--ratings", str(DATA / "ratings.csv"), "--judge", str(judge))


def test_a_declared_binary_scheme_names_the_categories(tmp_path):
    ratings = respelled(tmp_path, DATA / "ratings.csv", "yes", "no")
    result = summary("--ratings", str(ratings), "--categories", "命中,未命中")
    assert result["categories"] == ["命中", "未命中"]
    reversed_ = summary("--ratings", str(ratings), "--categories", "miss,hit")
    assert reversed_["categories"] == ["miss", "hit"]
    assert reversed_["gold"] == result["gold"]


def test_a_declared_nominal_scheme_accepts_only_its_categories(tmp_path):
    path = tmp_path / "ratings.csv"
    path.write_text("unit,item,rater,label\nu1,c1,A,Low\nu1,c1,B,high\nu1,c2,A,1\n", "utf-8")
    with pytest.raises(CommandError) as error:
        summary("--ratings", str(path), "--categories", "low,mid,high")
    assert "ratings.csv:4: label '1' is not one of the declared categories low, mid, high" in str(
        error.value
    )
    path.write_text("unit,item,rater,label\nu1,c1,A,Low\nu1,c1,B,high\n", "utf-8")
    result = summary("--ratings", str(path), "--categories", "low,mid,high")
    assert result["categories"] == ["low", "mid", "high"]  # mid is known though nobody used it


def test_a_declared_scheme_that_says_hit_twice_is_refused():
    with pytest.raises(CommandError, match="--categories: 'hit' and 'yes' both mean hit"):
        summary("--ratings", str(DATA / "ratings.csv"), "--categories", "hit,yes")
    with pytest.raises(CommandError, match="--categories: 'Hit' and 'hit' are the same"):
        summary("--ratings", str(DATA / "ratings.csv"), "--categories", "Hit,hit")


def test_the_reader_is_pure_and_says_which_spelling_it_read():
    reader = LabelReader(scheme=None)
    assert [reader.read(label, line=n) for n, label in enumerate(["HIT", " miss ", "Hit"], 2)] == [
        "hit",
        "miss",
        "hit",
    ]
    assert reader.spelling == "hit/miss"
    with pytest.raises(LabelSchemeError, match="line 2 wrote 'HIT'"):
        reader.read("0", line=5)
    assert scheme_declare(["met", "not met"]).binary == ("met", "not met")
    assert scheme_declare(["a", "b", "c"]).binary is None


def test_a_mixed_file_exits_non_zero_with_one_line(tmp_path):
    path = tmp_path / "ratings.csv"
    path.write_text("unit,item,rater,label\nu1,c1,A,1\nu1,c1,B,hit\n", "utf-8")
    process = subprocess.run(
        [sys.executable, "manage.py", "agreement", "--ratings", str(path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert process.returncode == 2 and process.stdout == ""
    assert "Traceback" not in process.stderr
    assert process.stderr.strip().splitlines() == [
        f"UsageError: {path}:3: label 'hit' mixes spellings: line 2 wrote '1' (1/0); "
        "write one spelling of hit/miss throughout the file"
    ]


def test_the_table_says_how_the_labels_were_read(tmp_path):
    ratings = respelled(tmp_path, DATA / "ratings.csv", "1", "0")
    out = StringIO()
    call_command("agreement", "--ratings", str(ratings), "--format", "table",
                 "--resamples", "200", stdout=out)  # fmt: skip
    assert "Categories: hit, miss (ratings spelled 1/0)" in out.getvalue()
