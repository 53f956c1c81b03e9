"""`heartbench agreement --categories` on unanimous data, and `--cluster COLUMN`: what the
bootstrap resamples (a `case` column by default, else the unit), recorded in the output."""

import json
from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

RATINGS = "unit,item,rater,label\n" + "".join(
    f"{unit},{item},{rater},good\n"
    for unit in ("u1", "u2")
    for item in ("c1", "c2")
    for rater in "AB"
)
JUDGE = "unit,item,label\n" + "".join(f"{u},{i},good\n" for u in ("u1", "u2") for i in ("c1", "c2"))
# Six units of three cases; the experts split on u1 and u2 (case k1) only.
CASES = "unit,item,rater,label,case\n" + "".join(
    f"{unit},c1,{rater},{'miss' if unit in ('u1', 'u2') and rater == 'B' else 'hit'},{case}\n"
    for unit, case in (("u1", "k1"), ("u2", "k1"), ("u3", "k2"), ("u4", "k2"), ("u5", "k3"),
                       ("u6", "k3"))
    for rater in "AB"
)  # fmt: skip


def summary(tmp_path, ratings: str, *args: str, judge: str | None = None) -> dict:
    path = tmp_path / "ratings.csv"
    path.write_text(ratings, encoding="utf-8")
    extra = []
    if judge is not None:
        (tmp_path / "judge.csv").write_text(judge, encoding="utf-8")
        extra = ["--judge", str(tmp_path / "judge.csv")]
    out = StringIO()
    call_command(
        "agreement", "--ratings", str(path), *extra, *args, "--resamples", "200", stdout=out
    )
    return json.loads(out.getvalue())


def test_a_declared_scheme_defines_ac1_and_pabak_on_unanimous_data(tmp_path):
    seen = summary(tmp_path, RATINGS, judge=JUDGE)
    assert seen["categories"] == ["good"]
    assert seen["raters"]["gwet_ac1"] is None and seen["judge_vs_gold"]["pabak"] is None
    declared = summary(tmp_path, RATINGS, "--categories", "good,bad", judge=JUDGE)
    assert declared["categories"] == ["good", "bad"]
    # All agree: p_a = 1, AC1's chance term p_e = π(1 − π) = 0 → 1; PABAK = 2·1 − 1 = 1.
    assert declared["raters"]["gwet_ac1"] == 1.0
    assert declared["judge_vs_gold"]["gwet_ac1"] == 1.0
    assert declared["judge_vs_gold"]["pabak"] == 1.0


def test_the_case_column_is_resampled_by_default_and_recorded(tmp_path):
    by_case = summary(tmp_path, CASES)
    assert by_case["bootstrap"]["cluster"] == "case"
    assert (by_case["bootstrap"]["clusters"], by_case["bootstrap"]["resampled"]) == (3, "cases")
    by_unit = summary(tmp_path, CASES, "--cluster", "unit")
    assert by_unit["bootstrap"]["cluster"] == "unit" and by_unit["bootstrap"]["clusters"] == 6
    # The same point estimate; the split units move together when their case is resampled.
    assert by_case["raters"]["percent_agreement"] == by_unit["raters"]["percent_agreement"]
    assert by_case["raters"]["ci95"] != by_unit["raters"]["ci95"]
    without = summary(tmp_path, RATINGS)
    assert without["bootstrap"]["cluster"] == "unit" and without["bootstrap"]["clusters"] == 2


def test_any_column_may_be_named(tmp_path):
    renamed = CASES.replace(",case\n", ",site\n", 1)
    result = summary(tmp_path, renamed, "--cluster", "site")
    assert result["bootstrap"]["cluster"] == "site"
    assert result["bootstrap"]["resampled"] == "values of site"
    assert result["bootstrap"]["clusters"] == 3


@pytest.mark.parametrize(
    ("text", "args", "message"),
    [
        (RATINGS, ("--cluster", "site"), ":1: no column 'site' to resample"),
        (CASES.replace("u2,c1,B,miss,k1", "u2,c1,B,miss,k2"), (),
         ":5: unit 'u2' is in case 'k2' here but in 'k1' on line 4"),
        (CASES.replace("u3,c1,A,hit,k2", "u3,c1,A,hit,"), (), ":6: empty case"),
        (CASES.replace(",case\n", ",site\n", 1), (), ":1: header must be the columns"),
        (RATINGS, ("--cluster", "label"), ":1: the label cannot be the cluster"),
    ],
)  # fmt: skip
def test_a_bad_cluster_is_refused_with_its_line(tmp_path, text, args, message):
    with pytest.raises(CommandError, match=message):
        summary(tmp_path, text, *args)
