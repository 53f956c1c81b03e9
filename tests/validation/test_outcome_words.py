"""One vocabulary for a condition's outcome (issue 42 item 3): passed, failed, undecided (the
interval straddles the threshold), not_enough_data (nothing to decide on) — the same key in
the CLI's JSON, the gate and the report, the same word in the CLI table and the report's HTML;
and `agreement`'s split of agreement by gold provenance, hand-worked."""

import dataclasses
import json
from io import StringIO

import numpy as np
import pytest
from django.core.management import call_command

from tests.builders.study_data import study
from validation.gate import STATUS_WORDS, STATUSES, UNDECIDED, overall_decide, status_word
from validation.report import report_compute, report_csv
from validation.report.data import HIT as H
from validation.report.data import MISS as M
from validation.report.html import report_html
from validation.statistics import BootstrapSettings

STUDY = {"name": "s", "dataset": "d", "status": "closed", "fraction": 1, "seed": 1,
         "gate_threshold": 0.75}  # fmt: skip
# statsmodels 0.15.0 proportion_confint(method="beta"), run outside the project.
CP_39_40 = (0.8684141415172343, 0.9993672550679505)
CP_9_10 = (0.5549838829718047, 0.9974714214555382)


def _files(tmp_path):
    """40 units of unanimous gold (20 met, 20 not met; the judge wrong on one) and 10 of split
    gold (2 of 3 raters; the judge wrong on one), one item a unit."""
    ratings, judge = ["unit,item,rater,label"], ["unit,item,label"]
    for i in range(40):
        gold = "hit" if i < 20 else "miss"
        ratings += [f"a{i},c1,{r},{gold}" for r in "ABC"]
        judge.append(f"a{i},c1,{'hit' if i == 39 else gold}")
    for i in range(10):
        labels = ("hit", "hit", "miss") if i < 5 else ("miss", "hit", "miss")
        ratings += [f"b{i},c1,{r},{label}" for r, label in zip("ABC", labels, strict=True)]
        judge.append(f"b{i},c1,{'miss' if i >= 4 else 'hit'}")
    (tmp_path / "ratings.csv").write_text("\n".join(ratings) + "\n")
    (tmp_path / "judge.csv").write_text("\n".join(judge) + "\n")
    return ["--ratings", str(tmp_path / "ratings.csv"), "--judge", str(tmp_path / "judge.csv")]


def _run(*args):
    out = StringIO()
    call_command("agreement", *args, "--resamples", "500", stdout=out)
    return out.getvalue()


def test_the_words_are_defined_once_for_every_outcome():
    assert set(STATUS_WORDS) == set(STATUSES) == {"passed", "failed", UNDECIDED, "not_enough_data"}
    assert status_word("undecided") == "undecided"
    assert status_word("not_enough_data") == "not enough data"
    assert overall_decide(["passed", "undecided"]) == "undecided"


def test_cli_agreement_by_provenance_is_hand_worked(tmp_path):
    summary = json.loads(_run(*_files(tmp_path)))
    groups = summary["judge_vs_gold"]["by_provenance"]
    # Unanimous: 39 of 40; 40 clusters, but one failure only (near 1): the exact interval,
    # design effect 1 (one item a unit), as wide as statsmodels' Clopper–Pearson.
    unanimous = groups["unanimous"]
    assert (unanimous["n"], unanimous["agreement"]) == (40, pytest.approx(39 / 40))
    assert unanimous["ci95"]["method"] == "clopper-pearson"
    assert (unanimous["ci95"]["low"], unanimous["ci95"]["high"]) == pytest.approx(CP_39_40)
    # Split: 9 of 10. On ten clusters the bootstrap's interval is the wider here, so it stands
    # (the rule: the wider of the two), never narrower than the exact one, and named.
    split = groups["split"]
    assert (split["n"], split["agreement"]) == (10, pytest.approx(0.9))
    assert split["ci95"]["method"] == "BCa"
    assert split["ci95"]["high"] - split["ci95"]["low"] >= CP_9_10[1] - CP_9_10[0]
    # A ratings file has no senior's decisions: adjudicated is unknown, and says why.
    assert groups["adjudicated"] is None
    assert "no senior's decisions" in groups["reasons"]["adjudicated"]
    assert summary["gold"]["unanimous"] == 40 and summary["gold"]["split"] == 10
    # The like-for-unlike count is gone (the human baseline compares like with like).
    assert "experts_below_judge" not in summary["judge_vs_experts"]


def test_cli_table_shows_the_split(tmp_path):
    table = _run(*_files(tmp_path), "--format", "table")
    assert "  agreement by gold provenance" in table
    assert "    unanimous             0.9750  n 40  [0.8684, 0.9994] clopper-pearson" in table
    assert "    adjudicated" in table and "no senior's decisions" in table
    assert "McNemar b 1 c 1: p 1 (exact); prevalence index 0.0000, bias index 0.0000" in table


def test_cli_a_straddling_noninferiority_interval_is_undecided_in_json_and_table(tmp_path):
    files = _files(tmp_path)
    delta = ["--noninferiority-delta", "-0.01"]
    test = json.loads(_run(*files, *delta))["judge_noninferiority"]
    assert test["ci95"]["low"] < -0.01 <= test["ci95"]["high"]  # it straddles the margin
    assert (test["status"], test["passed"]) == ("undecided", False)
    table = _run(*files, *delta, "--format", "table")
    line = next(line for line in table.splitlines() if line.startswith("Judge − experts"))
    assert line.endswith("delta -0.01: undecided") and "failed" not in table
    # The same data at the default margin: wholly above −0.05, passed.
    assert json.loads(_run(*files))["judge_noninferiority"]["status"] == "passed"


def _straddling_study():
    """Six cases; the judge wrong on three of 24 items. Judge − experts (pooled macro-F1) is
    0.017 [−0.177, 0.110] (BCa, 500 resamples, seed 3): it straddles −0.05."""
    gold = [[[H, M, M, M]] for _ in range(6)]
    judge = np.array(gold).ravel().copy()
    judge[[1, 2, 6]] = H
    ratings = np.stack([np.array(gold).ravel()] * 3, axis=1)
    ratings[2::4, 2] = H  # criterion 2: the third rater dissents
    data = study(gold_rows=gold, judges={"j": judge}, cases=6, hard=(False,) * 6, ratings=ratings)
    return dataclasses.replace(data, study=STUDY)


def test_the_report_gate_csv_and_html_say_undecided_for_the_same_situation():
    report = report_compute(data=_straddling_study(), bootstrap=BootstrapSettings(500, 3))
    judge = report["judges"][0]
    test = judge["noninferiority"]
    assert test["ci95"]["low"] < test["delta"] <= test["ci95"]["high"]
    condition = next(c for c in judge["gate"]["conditions"] if c["name"] == "noninferiority")
    assert test["status"] == condition["status"] == UNDECIDED
    assert ",noninferiority,,status,undecided" not in report_csv(report)  # no such shape
    assert "noninferiority,j,pooled,,status,undecided" in report_csv(report)
    assert "at_least -0.05: undecided" in report_csv(report)
    html = report_html(report)
    assert "non-inferiority not shown" not in html and "non-inferior<" not in html
    word = '<span class="undecided" data-status="undecided">undecided</span>'
    assert f"non-inferiority: {word}" in html  # the baseline paragraph
    rows = [row.split("</tr>")[0] for row in html.split('<tr class="status-')[1:]]
    (gate_row,) = [row for row in rows if "non-inferiority to the experts" in row]
    assert gate_row.startswith('undecided">') and word in gate_row
    assert "score lower against their peers" not in html


def test_the_few_models_warning_stands_beside_tau_in_the_side_by_side_table():
    # m1 scores above m2 from the gold and from the judge (= the gold): τ = 1 over 2 models.
    gold = [[[H, H, M, M], [M, M, M, M]], [[H, H, M, M], [H, M, M, M]]]
    codes = np.array(gold).ravel()
    data = study(gold_rows=gold, judges={"j": codes}, models=("m1", "m2"))
    data = dataclasses.replace(data, study=STUDY)
    report = report_compute(data=data, bootstrap=BootstrapSettings(200, 1))
    row = report["comparison"][0]
    assert row["kendall_tau"] == 1.0 and row["kendall_tau_models"] == 2
    assert row["kendall_tau_warning"]
    html = report_html(report)
    side_by_side = html.split('id="comparison"')[1].split("</table>")[0]
    assert "Only 2 models: a ranking of so few says almost nothing" in side_by_side
