"""`heartbench study plan`, `study create --fraction auto` and planned vs achieved in the report."""

import io
import json

import pytest
from django.core.management import CommandError, call_command

from benchmark.models import AuditEvent
from tests.builders.accounts import ExpertFactory
from tests.builders.studies import MODEL_NAME_MARKER, dataset_with_responses, rated_study
from validation.models import Study
from validation.report import report_compute
from validation.report.selectors import study_report_data
from validation.selectors.planning import pilot_icc
from validation.statistics import BootstrapSettings
from validation.statistics.planning import icc_binary, plan_cases

pytestmark = pytest.mark.django_db


def run(*args) -> str:
    out = io.StringIO()
    call_command("study", *args, stdout=out)
    return out.getvalue()


@pytest.fixture
def dataset():
    data, mods = dataset_with_responses(cases=40, models=2)
    ExpertFactory.create_batch(3)
    return data, ",".join(m.name for m in mods)


def test_plan_json_is_the_planner_on_the_dataset_items(dataset):
    data, models = dataset
    plan = json.loads(
        run(
            "plan",
            "--dataset",
            data.name,
            "--models",
            models,
            "--half-width",
            "0.1",
            "--format",
            "json",
        )
    )
    # Four criteria per case, answered by both models.
    expected = plan_cases(items_per_case=[8] * 40, half_width=0.1)
    assert plan.pop("power")["cases"] == expected.cases  # tests/validation/test_planner_power.py
    assert plan == json.loads(json.dumps(expected.as_dict()))
    assert plan["icc_source"] == "default" and plan["cases"] < 40


def test_plan_table_says_where_the_design_effect_came_from(dataset):
    data, models = dataset
    table = run("plan", "--dataset", data.name, "--models", models, "--half-width", "0.1")
    assert "ICC default (no pilot study given)" in table
    assert "design effect:" in table and "of 40 (fraction" in table


def test_pilot_icc_is_the_disagreement_icc_of_its_most_clustered_judge():
    pilot = rated_study(name="pilot")
    report_data = study_report_data(study=pilot)
    by_judge = []
    for judge in report_data.judges:
        both = (report_data.gold >= 0) & (judge.codes >= 0)
        disagree = (judge.codes[both] != report_data.gold[both]).astype(int)
        by_judge.append(icc_binary(values=disagree, clusters=report_data.case[both]))
    assert pilot_icc(pilot=pilot) == pytest.approx(max(by_judge))
    plain = pilot.models_under_test.get(name__startswith=MODEL_NAME_MARKER)
    table = run("plan", "--dataset", pilot.dataset.name, "--models", plain.name,
                "--half-width", "0.2", "--pilot", "pilot")  # fmt: skip
    assert f"ICC {max(by_judge):.4f}, ICC estimated from the pilot study" in table


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (("--pilot", "nosuch"), "no study named 'nosuch'"),
        (("--half-width", "0"), "not above 0"),
        (("--expected-agreement", "1"), "not below 1"),
    ],
)
def test_plan_refuses_bad_input(dataset, extra, message):
    data, models = dataset
    with pytest.raises(CommandError, match=message):
        run("plan", "--dataset", data.name, "--models", models, *extra)


def test_create_auto_samples_the_planned_cases_and_records_the_plan(dataset):
    data, models = dataset
    options = ["--fraction", "auto", "--half-width", "0.1", "--look-every", "5", "--seed", "4"]
    out = run("create", "planned", "--dataset", data.name, "--models", models, *options)
    study = Study.objects.get(name="planned")
    plan = plan_cases(items_per_case=[8] * 40, half_width=0.1)
    assert study.planned_cases == plan.cases == study.units.count() // 2
    assert study.plan["half_width"] == 0.1 and study.plan["cases"] == plan.cases
    assert study.fraction == pytest.approx(plan.fraction) and study.look_every == 5
    assert f"{plan.cases} cases" in out
    audit = AuditEvent.objects.get(action="study.create", object_id=str(study.pk))
    assert audit.data["plan"]["cases"] == plan.cases and audit.data["look_every"] == 5


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (("--fraction", "0.5", "--half-width", "0.1"), "give --fraction auto"),
        (("--fraction", "auto", "--half-width", "0.01"), "accept a wider interval"),
        (("--fraction", "auto", "--look-every", "0"), "not a positive"),
    ],
)
def test_create_refuses_bad_planning_and_writes_nothing(dataset, extra, message):
    data, models = dataset
    with pytest.raises(CommandError, match=message):
        run("create", "refused", "--dataset", data.name, "--models", models, *extra)
    assert not Study.objects.filter(name="refused").exists()


def test_report_states_planned_and_achieved_half_width():
    study = rated_study(name="planned-report")
    study.plan = {"half_width": 0.05, "expected_agreement": 0.85, "cases": 6}
    study.save(update_fields=["plan"])
    report = report_compute(
        data=study_report_data(study=study), bootstrap=BootstrapSettings(resamples=200)
    )
    planning = report["planning"]
    assert planning["planned_half_width"] == 0.05 and planning["planned_cases"] == 6
    judge = next(j for j in report["judges"] if j["judge"] == "judge-a")
    agreement = judge["vs_gold"]["agreement"]
    assert planning["judges"]["judge-a"] == pytest.approx(
        (agreement["high"] - agreement["low"]) / 2
    )
    html = run("report", study.name, "--format", "html", "--resamples", "200")
    assert "Planned: ±0.050 at an expected agreement of 0.85 (6 cases)." in html
    assert "Achieved: ±" in html
    csv_text = run("report", study.name, "--format", "csv", "--resamples", "200")
    assert "planning,judge-a,,,achieved_half_width," in csv_text
