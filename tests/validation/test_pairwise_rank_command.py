"""`heartbench pairwise rank`: malformed files first (each one line naming the file and the
line, exit 2, nothing written), then the figures and the JSON Schema."""

import json
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from tests.builders.schemas import schema_validator

HEADER = "case,model_a,model_b,winner\n"


def _good_rows(k: int) -> list[tuple[str, str, str]]:
    return [
        ("x", "y", "a"),
        ("y", "z", "a" if k % 3 else "b"),
        ("x", "z", "tie" if k % 2 else "a"),
        ("z", "x", "a" if k % 4 == 0 else "b"),
    ]


GOOD = HEADER + "".join(f"q{k},{a},{b},{w}\n" for k in range(8) for a, b, w in _good_rows(k))


def run(path: Path, *extra: str) -> str:
    out = []

    class Sink:
        def write(self, text):
            out.append(text)

        def flush(self):
            pass

    call_command("pairwise", "rank", "--comparisons", str(path), *extra, stdout=Sink())
    return "".join(out)


@pytest.mark.parametrize(
    ("content", "line", "reason"),
    [
        (b"", 1, "empty file"),
        (b"case,model_a,model_b\nq1,x,y\n", 1, "header must be the columns"),
        (b"q1,x,y,a\nq2,x,y,b\n", 1, "header must be the columns"),
        (b"case,model_a,model_b,winner,extra\nq1,x,y,a,1\n", 1, "unexpected: ['extra']"),
        (HEADER.encode() + b"q1,x,y,a\nq2,x,y,left\n", 3, "winner 'left' is not a, b or tie"),
        (HEADER.encode() + b"q1,x,y,a\nq2,x,x,a\n", 3, "model 'x' against itself"),
        (HEADER.encode(), 1, "no comparisons after the header"),
        (HEADER.encode() + b"q1,x,,a\n", 2, "empty model_b"),
        (HEADER.encode() + b"q1,x,y, \n", 2, "empty winner"),
        (HEADER.encode() + b"q1,x,y\n", 2, "3 fields where the header has 4"),
        (HEADER.encode() + b"q1,x,y,a\nq2,x\x00,y,a\n", 3, "NUL byte"),
        (HEADER.encode() + b"q1,x,y,a\nq2,\xff\xfe,y,a\n", 3, "not UTF-8 text"),
    ],
    ids=["empty", "missing-column", "no-header", "extra-column", "unknown-winner", "itself",
         "header-only", "blank-field", "blank-winner", "short-row", "nul", "bad-bytes"],
)  # fmt: skip
def test_a_bad_file_is_one_numbered_line_and_exit_2(tmp_path, content, line, reason):
    path = tmp_path / "bad.csv"
    path.write_bytes(content)
    with pytest.raises(CommandError) as caught:
        run(path)
    assert caught.value.returncode == 2
    assert str(caught.value).startswith(f"{path}:{line}: ") and reason in str(caught.value)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.csv"]  # nothing written


def test_models_never_compared_with_each_other_are_refused(tmp_path):
    path = tmp_path / "split.csv"
    path.write_text(HEADER + "q1,x,y,a\nq1,y,x,a\nq2,z,w,a\nq2,w,z,b\n", encoding="utf-8")
    with pytest.raises(CommandError, match="no common scale") as caught:
        run(path)
    assert caught.value.returncode == 2 and str(caught.value).startswith(f"{path}: ")


def test_the_json_holds_the_ranking_and_matches_its_schema(tmp_path):
    path = tmp_path / "good.csv"
    path.write_bytes(b"\xef\xbb\xbf" + GOOD.upper().replace("CASE,MODEL_A", "case,model_a")
                     .replace("MODEL_B,WINNER", "model_b,winner").encode())  # fmt: skip
    summary = json.loads(run(path, "--resamples", "200", "--seed", "3"))
    schema_validator("pairwise-rank").validate(summary)
    assert summary["comparisons"] == 32 and summary["cases"] == 8
    bt = summary["bradley_terry"]
    assert set(bt["strength"]) == {"X", "Y", "Z"} and summary["models"][0] == "X"
    assert bt["p_win"]["X"]["Y"] + bt["p_win"]["Y"]["X"] == pytest.approx(1)
    assert bt["normalisation"].startswith("log-strengths sum to 0")
    # x beat y every time, but y beat z, z beat x: the MLE is finite, no prior.
    assert not bt["prior"]["used"] and bt["prior"]["pseudo_count"] == 0
    assert summary["win_rate"]["X"]["Y"] == 1.0 and summary["compared"]["X"]["Z"] == 16
    assert summary["bootstrap"] == {"resamples": 200, "seed": 3, "level": 0.95,
                                    "cluster": "case", "clusters": 8}  # fmt: skip
    for interval in bt["ci95"].values():
        assert interval["method"] in ("BCa", "percentile") and interval["low"] < interval["high"]


def test_the_table_ranks_with_intervals(tmp_path):
    path = tmp_path / "good.csv"
    path.write_text(GOOD, encoding="utf-8")
    lines = run(path, "--format", "table", "--resamples", "200").splitlines()
    assert lines[0].split() == ["rank", "model", "strength", "95%", "interval", "win", "rate",
                                "compared"]  # fmt: skip
    assert lines[1].split()[:2] == ["1", "x"] and "[" in lines[1]
    assert "a tie is half a win for each side" in lines[4]


def test_the_console_script_exits_2_on_a_bad_file(tmp_path):
    bad = tmp_path / "bad.csv"
    bad.write_text(HEADER + "q1,x,y,maybe\n", encoding="utf-8")
    script = Path(sys.executable).with_name("heartbench")
    done = subprocess.run(
        [str(script), "pairwise", "rank", "--comparisons", str(bad)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2 and done.stdout == ""
    assert f"{bad}:2: winner 'maybe' is not a, b or tie" in done.stderr
