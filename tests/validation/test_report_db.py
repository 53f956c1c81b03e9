"""The study report from a real study: experts rate through the services, the judge's verdicts
are stored, and the report (command, page, downloads) is checked against the export rows."""

import csv
import io
import json
import re

import pytest
from django.core.management import CommandError, call_command

from tests.builders.accounts import PASSWORD
from tests.builders.schemas import schema_validator
from tests.builders.studies import (
    FORMULA,
    XSS,
    report_json,
)
from validation import selectors
from validation.gate import overall_decide
from validation.selectors.badge import judge_badge_get

pytestmark = pytest.mark.django_db


@pytest.fixture
def study(db, rated_study_of_module):
    return selectors.study_get(name=rated_study_of_module)


def test_report_matches_a_count_from_the_export_rows(study):
    report = report_json(study.name)
    rows = list(selectors.study_export_rows(study=study))
    judge = next(j for j in report["judges"] if j["judge"] == "judge-a")
    compared = [r for r in rows if r["judge:judge-a"] in ("met", "not_met") and r["gold"]]
    agree = sum(r["gold"] == r["judge:judge-a"] for r in compared)  # one spelling: met / not_met
    assert judge["vs_gold"]["n"] == len(compared)
    assert judge["vs_gold"]["agreement"]["value"] == pytest.approx(agree / len(compared))
    matrix = judge["vs_gold"]["confusion"]["matrix"]
    gold_hit_judge_miss = sum(r["gold"] == "met" and r["judge:judge-a"] == "not_met"
                              for r in compared)  # fmt: skip
    assert matrix[0][1] == gold_hit_judge_miss and sum(map(sum, matrix)) == len(compared)
    assert judge["errors"] == 3  # one criterion of one case, for each of three models
    counts = report["counts"]
    assert counts["units"] == 18 and counts["units_complete"] == 18
    assert counts["items"] == len(rows) == 72 and counts["criteria"] == 24
    provenance = {p: sum(r["provenance"] == p for r in rows) for p in ("3/3", "2/1")}
    assert counts["gold_provenance"] == provenance | {"adjudicated": 0}
    # Breakdowns partition the items: the models' n add up to the whole.
    by_model = judge["breakdowns"]["model"]
    assert sum(section["n"] for section in by_model.values()) == judge["vs_gold"]["n"]
    assert set(by_model) == {r["model"] for r in rows} and XSS in by_model
    assert report["bootstrap"] == {"resamples": 200, "seed": 20251226, "level": 0.95,
                                   "clusters": 6, "resampled": "cases"}  # fmt: skip


def test_experts_gate_score_effect_and_comparison(study):
    report = report_json(study.name)
    experts = report["experts"]
    assert experts["n_experts"] == 3 and experts["fleiss_kappa"]["value"] is not None
    assert len(experts["leave_one_out"]) == 3
    a, b = (next(j for j in report["judges"] if j["judge"] == n) for n in ("judge-a", "judge-b"))
    # judge-b flips every verdict of judge-a: agreements add up to one.
    total = a["vs_gold"]["agreement"]["value"] + b["vs_gold"]["agreement"]["value"]
    assert total == pytest.approx(1.0)
    conditions = {j["judge"]: j["gate"]["conditions"] for j in (a, b)}
    # Agreement 60/69 = 0.870 over six cases: too few clusters for the bootstrap alone, so the
    # wider clustered Clopper–Pearson interval, [0.73, 0.95], which straddles 0.75 (issue 42).
    assert a["vs_gold"]["agreement"]["method"] == "clopper-pearson-clustered"
    assert conditions["judge-a"][0]["status"] == "undecided"
    assert conditions["judge-b"][0]["status"] == "failed" and b["gate"]["decision"] == "failed"
    assert a["gate"]["config"] == study.gate_config and a["gate"]["config"]["agreement_min"] == 0.75
    # Six cases give fewer than ten gold catastrophic hits: that condition lacks data.
    assert conditions["judge-a"][2]["status"] == "not_enough_data"
    for judge in (a, b):
        statuses = [c["status"] for c in judge["gate"]["conditions"]]
        assert judge["gate"]["decision"] == overall_decide(statuses)
    assert [row["judge"] for row in report["comparison"]] == ["judge-a", "judge-b"]
    effect = a["score_effect"]
    assert len(effect["models"]) == 3 and effect["rank_agreement"]["models"] <= 3
    for model in effect["models"]:
        # The case with an error verdict is unscored on both sides alike.
        assert model["cases"] == 5
        if model["difference"] is not None:
            assert model["difference"] == pytest.approx(model["judge"] - model["gold"])
    assert a["catastrophic"]["criteria"] == 18


def test_threshold_of_the_study_decides_the_gate(study):
    study.gate_threshold = 0.99
    study.save(update_fields=["gate_threshold"])
    judge = report_json(study.name)["judges"][0]
    agreement = judge["gate"]["conditions"][0]
    assert agreement["threshold"] == 0.99 and agreement["status"] != "passed"


def test_every_condition_of_the_gate_is_the_studys(study):
    study.gate_catastrophic_min_hits = 0
    study.gate_catastrophic_recall = 0.0
    study.gate_score_bias = 100.0
    study.gate_noninferiority_margin = 1.0
    study.save()
    judge = report_json(study.name)["judges"][0]
    thresholds = {(c["name"], c["subject"]): c["threshold"] for c in judge["gate"]["conditions"]}
    assert thresholds[("noninferiority", None)] == -1.0
    assert thresholds[("catastrophic_recall", None)] == 0.0
    assert {v for (name, _), v in thresholds.items() if name == "score_bias"} == {100.0}


def test_csv_neutralises_formulas_and_html_escapes_data(study, tmp_path):
    target = tmp_path / "report.csv"
    call_command("study", "report", study.name, "--format", "csv", "--resamples", "200",
                 "--output", str(target), stderr=io.StringIO())  # fmt: skip
    rows = list(csv.DictReader(target.open(encoding="utf-8")))
    names = {r["name"] for r in rows if r["group"] == "model"}
    assert "'" + FORMULA in names and FORMULA not in names
    assert not any(str(cell).startswith(("=", "+", "@")) for r in rows for cell in r.values())
    page = tmp_path / "report.html"
    call_command("study", "report", study.name, "--format", "html", "--resamples", "200",
                 "--output", str(page), stderr=io.StringIO())  # fmt: skip
    html = page.read_text(encoding="utf-8")
    assert "<script" not in html and "onerror=alert(1)>" not in html
    assert "&lt;script&gt;" in html
    assert "http://" not in html.replace('xmlns="http://www.w3.org/2000/svg"', "")
    assert html.count("<svg") == html.count("<title") - 1 == html.count("<desc")


def test_nothing_is_written_on_failure(study, tmp_path):
    target = tmp_path / "out.json"
    with pytest.raises(CommandError, match="no study named"):
        call_command("study", "report", "missing", "--output", str(target))
    with pytest.raises(CommandError, match="at least 100"):
        call_command("study", "report", study.name, "--resamples", "5", "--output", str(target))
    assert list(tmp_path.iterdir()) == []


def test_staff_see_the_page_and_downloads_experts_get_nothing(study, client, admin_client):
    url = f"/admin/studies/{study.name}/report/"
    page = admin_client.get(url)
    assert page.status_code == 200
    body = page.content.decode()
    assert "?format=csv" in body and "judge-a" in body and "&lt;script&gt;" in body
    download = admin_client.get(url + "?format=json")
    disposition = 'attachment; filename="study-report-report-study.json"'
    assert download["Content-Disposition"] == disposition
    assert json.loads(download.content)["study"]["name"] == study.name
    assert admin_client.get(url + "?format=exe").status_code == 404
    assert admin_client.get("/admin/studies/nope/report/").status_code == 404
    assert url in admin_client.get("/admin/validation/study/").content.decode()
    expert = study.pool.experts.first()
    assert client.login(username=expert.user.username, password=PASSWORD)
    for suffix in ("", "?format=json", "?format=csv", "?format=html"):
        response = client.get(url + suffix)
        assert response.status_code == 302 and "/login/" in response["Location"]
        assert b"judge-a" not in response.content


def test_leaderboard_html_shows_the_gate_of_the_closed_study(study):
    out = io.StringIO()
    call_command("leaderboard", "--dataset", study.dataset.name, "--format", "html", stdout=out)
    html = out.getvalue()
    assert f"study <strong>{study.name}</strong>" in html
    assert "judge-a" in html or "judge-b" in html
    assert "&lt;script&gt;" in html and "<script" not in html


def test_the_report_the_web_badge_and_the_command_line_give_the_same_gate(study, admin_client):
    """One study, five readers (the report, the web badge, the command line's leaderboard as
    HTML, JSON and table), one decision and the same conditions (all at the default
    bootstrap settings, as each of them runs by default)."""
    out = io.StringIO()
    call_command("study", "report", study.name, "--format", "json", stdout=out)
    report = {j["judge"]: j["gate"] for j in json.loads(out.getvalue())["judges"]}
    out = io.StringIO()
    call_command("leaderboard", "--dataset", study.dataset.name, "--format", "html", stdout=out)
    command_line = dict(re.findall(r'<li>([^:<]+): .*?data-decision="(\w+)"', out.getvalue()))
    out = io.StringIO()
    call_command("leaderboard", "--dataset", study.dataset.name, "--format", "json", stdout=out)
    board = json.loads(out.getvalue())
    schema_validator("leaderboard").validate(board)
    as_json = {j["judge"]: j for j in board["gate"]["judges"]}
    out = io.StringIO()
    call_command("leaderboard", "--dataset", study.dataset.name, stdout=out)
    as_table = dict(re.findall(r"^gate: (\S+) (\w+) \(", out.getvalue(), re.M))
    decisions = set()
    for judge, gate in report.items():
        page = admin_client.get(f"/leaderboard/?dataset={study.dataset.name}&judge={judge}")
        web = re.search(rf'data-judge="{judge}" data-decision="(\w+)"', page.content.decode())
        assert (web.group(1), command_line[judge]) == (gate["decision"], gate["decision"])
        assert (as_json[judge]["decision"], as_table[judge]) == (gate["decision"], gate["decision"])
        assert as_json[judge]["conditions"] == gate["conditions"]
        badge = judge_badge_get(dataset=study.dataset, judge=judge)
        assert list(badge.conditions) == gate["conditions"]
        decisions.add(gate["decision"])
    # judge-b flips every verdict of judge-a: the fixture makes the test able to tell them apart.
    assert decisions >= {"failed"} and len(report) == 2
