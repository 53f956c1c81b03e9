"""The study report's agreement by gold provenance, McNemar's test and the prevalence and bias
indices (issue 42 item 5), in its JSON, HTML and CSV, on a hand-built study."""

import csv
import dataclasses
import io

import numpy as np
import pytest

from tests.builders.study_data import study
from validation.report import report_compute, report_csv
from validation.report.data import HIT as H
from validation.report.data import MISS as M
from validation.report.html import report_html
from validation.statistics import BootstrapSettings

BOOT = BootstrapSettings(resamples=500, seed=3)
STUDY = {"name": "s", "dataset": "d", "status": "closed", "fraction": 1, "seed": 1,
         "gate_threshold": 0.75}  # fmt: skip

# statsmodels 0.15.0, proportion_confint(x, n, alpha=0.05, method="beta") (Clopper–Pearson),
# run outside the project: the same bounds as the hand-worked beta quantiles below.
CP_11_12 = (0.6152038348490559, 0.9978924067681397)
CP_4_6 = (0.22277809550351213, 0.9567281317072583)
CP_6_6 = (0.5407418735600995, 1.0)  # 0.025 ** (1 / 6): the exact lower bound of 6 of 6


def _study():
    """Six cases, one model, four criteria a case with gold met, not met, not met, not met.
    Criteria 0 and 1 have unanimous gold (3/3), criterion 2 split gold (2/1: the third
    rater dissents), criterion 3 a senior's (adjudicated). The judge calls met where the gold
    is not met on three items: case 0's criterion 1 (unanimous), case 0's and case 1's
    criterion 2 (split)."""
    gold = [[[H, M, M, M]] for _ in range(6)]
    data = study(gold_rows=gold, judges={"j": np.array(gold).ravel()}, cases=6, hard=(False,) * 6)
    provenance = np.array(["3/3", "3/3", "2/1", "adjudicated"] * 6, dtype=object)
    ratings = data.ratings.copy()
    split = provenance == "2/1"
    ratings[split, 2] = np.where(ratings[split, 2] == M, H, M)
    judge = np.array(gold).ravel().copy()
    judge[[1, 2, 6]] = H
    return dataclasses.replace(
        data,
        study=STUDY,
        provenance=provenance,
        ratings=ratings,
        judges=(dataclasses.replace(data.judges[0], codes=judge),),
    )


@pytest.fixture(scope="module")
def report():
    return report_compute(data=_study(), bootstrap=BOOT)


def test_agreement_by_provenance_is_hand_worked(report):
    groups = report["judges"][0]["vs_gold"]["by_provenance"]
    assert set(groups) == {"unanimous", "split", "adjudicated"}
    # Unanimous: 12 items, one wrong: 11/12. Six clusters of two items, per-case agreements
    # 1, 2, 2, 2, 2, 2: Kish's deff Σ(x − p·2)² / (n p (1 − p)) = 0.8333 / 0.9167 < 1, so 1,
    # and fewer than 30 cases: the exact interval at n = 12 (wider than the bootstrap's).
    unanimous = groups["unanimous"]
    assert (unanimous["n"], unanimous["agreement"]) == (12, pytest.approx(11 / 12))
    assert unanimous["ci95"]["method"] == "clopper-pearson"
    assert (unanimous["ci95"]["low"], unanimous["ci95"]["high"]) == pytest.approx(CP_11_12)
    # Split: one item a case, two wrong: 4/6.
    split = groups["split"]
    assert (split["n"], split["agreement"]) == (6, pytest.approx(4 / 6))
    assert split["ci95"]["method"] == "clopper-pearson"
    assert (split["ci95"]["low"], split["ci95"]["high"]) == pytest.approx(CP_4_6)
    # Adjudicated: 6 of 6 right, yet never a zero-width interval: [0.025^(1/6), 1].
    adjudicated = groups["adjudicated"]
    assert (adjudicated["n"], adjudicated["agreement"]) == (6, 1.0)
    assert adjudicated["ci95"]["low"] == pytest.approx(0.025 ** (1 / 6)) == CP_6_6[0]
    assert adjudicated["ci95"]["high"] == 1.0
    # The groups partition the items behind the headline figure.
    overall = report["judges"][0]["vs_gold"]["agreement"]
    assert (overall["n"], overall["value"]) == (24, pytest.approx(21 / 24))


def test_mcnemar_and_the_indices_beside_pabak(report):
    vs_gold = report["judges"][0]["vs_gold"]
    # Rows gold (met, not met), columns judge: [[6, 0], [3, 15]].
    assert vs_gold["confusion"]["matrix"] == [[6, 0], [3, 15]]
    # Byrt, Bishop & Carlin: prevalence (a − d) / n = (6 − 15) / 24, bias (b − c) / n = −3 / 24.
    assert vs_gold["prevalence_index"] == pytest.approx(-0.375)
    assert vs_gold["bias_index"] == pytest.approx(-0.125)
    # Exact McNemar on b = 0, c = 3: two-sided 2 · (1/2)³ = 0.25 (statsmodels 0.15.0
    # mcnemar(exact=True) gives 0.25 too).
    assert vs_gold["mcnemar"] == {"b": 0, "c": 3, "p_value": pytest.approx(0.25), "method": "exact"}


def test_the_csv_carries_them(report):
    rows = list(csv.DictReader(io.StringIO(report_csv(report))))
    by = {
        (r["section"], r["group"], r["name"], r["statistic"]): r
        for r in rows
        if r["judge"] == "j" and r["section"].startswith("judge_vs_gold")
    }
    unanimous = by["judge_vs_gold_by_provenance", "provenance", "unanimous", "agreement"]
    assert float(unanimous["value"]) == pytest.approx(11 / 12) and unanimous["n"] == "12"
    assert float(unanimous["ci95_low"]) == pytest.approx(CP_11_12[0])
    assert unanimous["method"] == "clopper-pearson"
    assert by["judge_vs_gold_by_provenance", "provenance", "adjudicated", "agreement"]["n"] == "6"
    assert float(by["judge_vs_gold", "all", "", "bias_index"]["value"]) == pytest.approx(-0.125)
    p_value = by["judge_vs_gold", "mcnemar", "", "mcnemar_p_value"]
    assert (float(p_value["value"]), p_value["n"], p_value["method"]) == (0.25, "3", "exact")
    assert by["judge_vs_gold", "mcnemar", "", "mcnemar_c"]["value"] == "3"


def test_the_html_shows_them(report):
    html = report_html(report)
    assert "Agreement with the gold by how the gold came about" in html
    assert '<tr data-provenance="unanimous"><td>unanimous (3/3)</td><td>12</td>' in html
    assert "0.917 <span" in html and "[0.615, 0.998]" in html
    assert '<tr data-provenance="adjudicated"><td>adjudicated</td><td>6</td>' in html
    assert "[0.541, 1.000]" in html
    assert "two-sided p-value 0.2500 (exact binomial)" in html
    assert "Prevalence index -0.375, bias index -0.125" in html


def test_a_study_without_any_gold_of_a_kind_says_why():
    data = _study()
    data = dataclasses.replace(
        data, provenance=np.where(data.provenance == "adjudicated", "3/3", data.provenance)
    )
    groups = report_compute(data=data, bootstrap=BOOT)["judges"][0]["vs_gold"]["by_provenance"]
    assert groups["adjudicated"]["n"] == 0 and groups["adjudicated"]["agreement"] is None
    assert groups["adjudicated"]["reason"] == "no item carries both labels"
    assert groups["adjudicated"]["ci95"] is None
