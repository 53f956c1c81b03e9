"""The study report page under /admin/: the gate's conditions, the human baseline, the
score-level agreement and the raters' quality, in English and Chinese."""

import re

import pytest

from tests.builders.studies import rated_study
from validation.report.compute import report_compute
from validation.report.selectors import study_report_data
from validation.statistics import BootstrapSettings

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("few_resamples")]


def page(client, study, language: str) -> str:
    client.cookies["django_language"] = language
    response = client.get(f"/admin/studies/{study.name}/report/")
    assert response.status_code == 200
    return response.content.decode()


def test_the_page_shows_each_gate_condition_with_the_reports_decision(admin_client):
    study = rated_study(name="page-gate")
    report = report_compute(data=study_report_data(study=study), bootstrap=BootstrapSettings())
    body = page(admin_client, study, "en")
    boxes = dict(re.findall(r'<h2 id="judge-\d+">Judge <span translate="no">([^<]+)</span>.*?'
                            r'class="gatebox" data-decision="(\w+)"', body, re.S))  # fmt: skip
    assert boxes == {j["judge"]: j["gate"]["decision"] for j in report["judges"]}
    judge = report["judges"][0]
    rows = re.findall(r'<tr class="status-(\w+)">', body)
    assert rows[: len(judge["gate"]["conditions"])] == [
        c["status"] for c in judge["gate"]["conditions"]
    ]
    agreement = judge["gate"]["conditions"][0]
    assert f"[{agreement['low']:.3f}, {agreement['high']:.3f}]" in body
    assert "lower bound ≥ 0.75" in body and "interval within ±5" in body
    assert "Holm-corrected" in body


def test_the_page_shows_the_human_baseline_and_the_judge_on_the_same_pairs(admin_client):
    study = rated_study(name="page-baseline")
    report = report_compute(data=study_report_data(study=study), bootstrap=BootstrapSettings())
    body = page(admin_client, study, "en")
    assert "The human baseline, like for like" in body
    pooled = report["experts"]["vs_others"]["pooled"]
    judge = report["judges"][0]
    assert f"{pooled['agreement']['value']:.3f}" in body
    assert f"{judge['vs_others']['pooled']['macro_f1']['value']:.3f}" in body
    for rater in report["experts"]["vs_others"]["raters"]:
        assert f'<td translate="no">{rater}</td>' in body
    assert "δ = -0.05" in body
    test = judge["noninferiority"]
    assert f"{test['difference']:.3f}" in body


def test_the_page_shows_score_agreement_and_the_raters_quality(admin_client):
    study = rated_study(name="page-scores")
    body = page(admin_client, study, "en")
    assert "Score-level agreement, case by case" in body and "ICC(2,1)" in body
    assert "Bland–Altman: case scores of judge" in body  # the plot's title
    assert "limits of agreement" in body
    # Three models: a plain warning, and no p-value offered as if it meant something.
    assert "Only 3 models: a ranking of so few says almost nothing" in body
    assert "p = " not in body
    assert 'id="rater-quality"' in body
    pseudonyms = re.findall(r'<table class="figs raters">.*?</table>', body, re.S)[0]
    assert pseudonyms.count("<tr>") == 1 + 3  # header and the three experts


def test_the_page_in_chinese(admin_client):
    study = rated_study(name="page-zh")
    body = page(admin_client, study, "zh-hans")
    for words in ("人类基线（同等条件对比）", "逐案例的分数一致性", "评分者质量", "下限 ≥ 0.75"):
        assert words in body
