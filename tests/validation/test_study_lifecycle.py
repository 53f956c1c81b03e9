import csv
import io
import json

import pytest
from django.core.management import CommandError, call_command
from rest_framework.test import APIClient

from annotation import services as annotation_services
from annotation.models import Expert
from benchmark.models import AuditEvent, RubricItem, Verdict
from tests.builders.accounts import ExpertFactory
from tests.builders.datasets import JudgeRunFactory
from tests.builders.labels import all_labels
from tests.builders.studies import dataset_with_responses, open_study, rate
from validation import services
from validation.gate import GateConfig
from validation.models import GoldLabel, Study, StudyUnit

pytestmark = pytest.mark.django_db


def test_create_samples_cases_for_every_model_and_is_reproducible():
    dataset, models = dataset_with_responses(cases=20, models=2)
    experts = [ExpertFactory()]
    a = services.study_create(name="a", dataset=dataset, models=models, fraction=0.3, seed=9,
                              experts=experts)  # fmt: skip
    b = services.study_create(name="b", dataset=dataset, models=models, fraction=0.3, seed=9,
                              experts=experts)  # fmt: skip
    cases_a = set(a.units.values_list("case_id", flat=True))
    assert len(cases_a) == 6 and a.units.count() == 12
    assert cases_a == set(b.units.values_list("case_id", flat=True))
    assert a.status == "draft"
    assert AuditEvent.objects.filter(action="study.create").count() == 2
    with pytest.raises(services.StudyError, match="exists already"):
        services.study_create(name="a", dataset=dataset, models=models, experts=experts)


def test_close_marks_short_units_for_a_senior_whose_labels_decide():
    raters = ExpertFactory.create_batch(3)
    senior = ExpertFactory(tier=Expert.Tier.SENIOR)
    study = open_study(cases=2, experts=[*raters, senior])
    # One unit gets three ratings (2 hit, 1 miss); the other only one.
    first = rate(raters[0], study, hit=True)
    unit_a = first.unit
    for expert, hit in [(raters[1], True), (raters[2], False)]:
        assignment = annotation_services.assignment_claim_next(user=expert.user, pool=study.pool)
        if assignment.unit_id != unit_a.pk:  # take the same unit for a full set of three
            annotation_services.assignment_submit(
                assignment=assignment, labels=all_labels(assignment)
            )
            assignment = annotation_services.assignment_claim_next(
                user=expert.user, pool=study.pool
            )
        annotation_services.assignment_submit(
            assignment=assignment, labels=all_labels(assignment, hit=hit)
        )
    result = services.study_close(study=study)
    states = dict(StudyUnit.objects.values_list("unit_id", "state"))
    assert states[unit_a.pk] == "gold"
    assert result["incomplete"] == 1
    assert set(GoldLabel.objects.filter(study_unit__unit=unit_a).values_list(
        "hit", "provenance")) == {(True, "2/1")}  # fmt: skip
    # Raters get nothing more; the senior gets the short unit in the senior queue.
    api = APIClient()
    api.force_authenticate(raters[0].user)
    assert api.post("/api/v1/assignments/next/?study=study-a").status_code == 204
    api.force_authenticate(senior.user)
    body = api.post("/api/v1/adjudications/next/?study=study-a").json()
    assert body["unit"]["whole_unit"] is True
    decisions = [
        {"criterion": c["id"], "hit": False, "reason": "no rating reached three"}
        for c in body["unit"]["criteria"]
    ]
    api.post(f"/api/v1/adjudications/{body['id']}/submit/", {"decisions": decisions}, format="json")
    services.study_settle(study=study)
    short = StudyUnit.objects.get(state="adjudicated")
    assert set(short.gold.values_list("hit", "provenance")) == {(False, "adjudicated")}
    assert AuditEvent.objects.filter(action="adjudication.decide").count() == 1
    assert AuditEvent.objects.filter(action="adjudication.submit").count() == 1


def test_export_writes_one_row_per_unit_and_criterion_with_raters_gold_and_judge(tmp_path):
    raters = ExpertFactory.create_batch(3)
    study = open_study(cases=1, experts=raters, judge=True, name="exp")
    run = study.judge_runs.get()
    response = study.units.get().unit.response
    for item in RubricItem.objects.filter(case=response.case):
        Verdict.objects.create(run=run, response=response, rubric_item=item, state="met")
    for expert, hit in zip(raters, [True, False, True], strict=True):
        rate(expert, study, hit=hit)
    out = tmp_path / "exp.csv"
    call_command("study", "export", "exp", "--format", "csv", "--output", str(out))
    rows = list(csv.DictReader(out.open(encoding="utf-8")))
    assert len(rows) == 4
    row = rows[0]
    assert row["gold"] == "met" and row["provenance"] == "2/1"
    assert {row["rater_1_label"], row["rater_2_label"], row["rater_3_label"]} == {"met", "not_met"}
    assert row["rater_1"].startswith("R-") and row[f"judge:{run.judge.name}"] == "met"
    assert row["model"] == response.model.name and row["case"] == response.case.question_id
    stdout = io.StringIO()
    call_command("study", "export", "exp", "--format", "jsonl", stdout=stdout)
    lines = [json.loads(line) for line in stdout.getvalue().splitlines()]
    assert len(lines) == 4 and lines[0]["points"] is not None


def test_commands_create_open_and_refuse_bad_input(capsys):
    dataset, models = dataset_with_responses(cases=10, models=2)
    JudgeRunFactory(model=models[0], dataset=dataset, judge__name="j1")
    names = ",".join(m.name for m in models)
    call_command(
        "study", "create", "cli", "--dataset", dataset.name, "--models", names,
        "--judge", "j1", "--seed", "5",
    )  # fmt: skip
    study = Study.objects.get(name="cli")
    assert study.seed == 5 and study.judge_runs.count() == 1 and study.units.count() == 6
    call_command("study", "open", "cli")
    study.pool.refresh_from_db()
    assert study.status == "open"
    with pytest.raises(CommandError, match="unknown model"):
        call_command("study", "create", "x", "--dataset", dataset.name, "--models", "nope")
    with pytest.raises(CommandError, match="study cli is open: only a draft opens"):
        call_command("study", "open", "cli")
    with pytest.raises(CommandError, match="no study"):
        call_command("study", "close", "missing")


def test_expert_add_reads_the_password_from_stdin(monkeypatch, production_hasher):
    monkeypatch.setattr("sys.stdin", io.StringIO("s3cret-pass\n"))
    call_command("expert", "add", "alice", "--password-stdin", "--tier", "senior",
                 "--specialty", "职场心理", "--specialty", "warmth")  # fmt: skip
    expert = Expert.objects.get(user__username="alice")
    assert expert.is_senior and expert.specialties == ["职场心理", "warmth"]
    assert expert.user.check_password("s3cret-pass")
    monkeypatch.setattr("sys.stdin", io.StringIO("other\n"))
    with pytest.raises(CommandError, match="already an expert"):
        call_command("expert", "add", "alice", "--password-stdin")


def test_demo_study_is_idempotent():
    dataset, _ = dataset_with_responses(cases=10, models=2)
    dataset.is_demo = True
    dataset.save()
    out = io.StringIO()
    call_command("demo_study", stdout=out)
    assert "demo-expert-1" in out.getvalue() and "DEMO ONLY" in out.getvalue()
    study = Study.objects.get(name="demo-study")
    assert study.status == "open" and study.units.count() == 6
    before = (Expert.objects.count(), StudyUnit.objects.count(), AuditEvent.objects.count())
    again = io.StringIO()
    call_command("demo_study", stdout=again)
    assert "nothing to do" in again.getvalue()
    assert (Expert.objects.count(), StudyUnit.objects.count(), AuditEvent.objects.count()) == before


def test_create_configures_the_gate_and_refuses_a_bad_one(capsys):
    dataset, models = dataset_with_responses(cases=10, models=2)
    names = ",".join(m.name for m in models)
    base = ["study", "create", "x", "--dataset", dataset.name, "--models", names]
    with pytest.raises(CommandError, match=r"--gate-agreement: 1\.5 is not between 0 and 1"):
        call_command(*base, "--gate-agreement", "1.5")
    with pytest.raises(CommandError, match="--gate-catastrophic-hits"):
        call_command(*base, "--gate-catastrophic-hits", "-1")
    assert not Study.objects.exists()  # nothing written by a refused command
    with pytest.raises(services.StudyError, match="score_bias_max must be between 0 and 100"):
        services.study_create(
            name="y", dataset=dataset, models=models, gate=GateConfig(score_bias_max=150)
        )
    assert not Study.objects.exists()
    call_command(*base, "--gate-agreement", "0.8", "--gate-margin", "0.1",
                 "--gate-catastrophic-recall", "0.9", "--gate-catastrophic-hits", "20",
                 "--gate-score-bias", "3")  # fmt: skip
    study = Study.objects.get(name="x")
    assert study.gate_config == {
        "agreement_min": 0.8,
        "noninferiority_margin": 0.1,
        "catastrophic_recall_min": 0.9,
        "catastrophic_min_hits": 20,
        "score_bias_max": 3.0,
    }
    audit = AuditEvent.objects.get(action="study.create")
    assert audit.data["gate"] == study.gate_config
    call_command("study", "create", "defaults", "--dataset", dataset.name, "--models", names)
    assert Study.objects.get(name="defaults").gate_config == GateConfig().as_dict()
