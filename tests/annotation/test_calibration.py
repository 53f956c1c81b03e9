import json

import pytest
from django.core.management import CommandError, call_command
from django.test import Client

from annotation import services
from annotation.models import Assignment, CalibrationAttempt, Pool, ReferenceLabel, Submission
from annotation.references import ReferenceRow
from benchmark.models import AuditEvent, Response
from tests.builders.accounts import ExpertFactory
from tests.builders.calibration import calibration_set, reference_labels
from tests.builders.labels import all_labels
from tests.builders.studies import dataset_with_responses, open_study

pytestmark = pytest.mark.django_db


def claim(expert, pool):
    return services.assignment_claim_next(user=expert.user, pool=pool)


def gated_study(*, experts, senior, cases=2, **policy):
    study = open_study(cases=cases, experts=experts)
    calibration = calibration_set(senior=senior)
    services.pool_set_quality_policy(pool=study.pool, calibration=calibration, **policy)
    study.pool.refresh_from_db()
    return study, calibration


def sit(expert, pool, *, wrong=0) -> CalibrationAttempt:
    """Take the calibration through the study's own claim, as the workbench does."""
    while True:
        assignment = claim(expert, pool)
        assert assignment is not None and assignment.kind == "calibration"
        services.assignment_submit(
            assignment=assignment, labels=reference_labels(assignment, wrong=wrong)
        )
        attempt = CalibrationAttempt.objects.get(pk=assignment.attempt_id)
        if attempt.finished_at is not None:
            return attempt


def test_a_new_expert_gets_calibration_units_first_then_study_work_after_passing():
    senior = ExpertFactory(tier="senior")
    expert = ExpertFactory()
    study, calibration = gated_study(experts=[expert], senior=senior)
    first = claim(expert, study.pool)
    assert first.kind == "calibration" and first.pool == calibration.pool
    assert claim(expert, study.pool).pk == first.pk  # the open calibration lease comes back
    services.assignment_submit(assignment=first, labels=reference_labels(first, wrong=1))
    second = claim(expert, study.pool)
    assert second.kind == "calibration" and second.unit_id != first.unit_id
    services.assignment_submit(assignment=second, labels=reference_labels(second))
    attempt = CalibrationAttempt.objects.get(expert=expert)
    # 2 units × 4 criteria, one wrong: 7/8 ≥ 0.8.
    assert (attempt.agreed, attempt.criteria, attempt.passed) == (7, 8, True)
    assert attempt.agreement == pytest.approx(7 / 8)
    work = claim(expert, study.pool)
    assert work.kind == "rating" and work.pool == study.pool
    actions = set(AuditEvent.objects.values_list("action", flat=True))
    assert {"calibration.create", "pool.quality_policy", "calibration.start",
            "calibration.finish"} <= actions  # fmt: skip


def test_a_failed_sitting_gives_no_study_work_and_a_new_sitting_starts():
    senior = ExpertFactory(tier="senior")
    expert = ExpertFactory()
    study, _ = gated_study(experts=[expert], senior=senior)
    failed = sit(expert, study.pool, wrong=2)  # 4/8 right
    assert failed.passed is False and failed.agreement == pytest.approx(0.5)
    again = claim(expert, study.pool)
    assert again.kind == "calibration" and again.attempt_id != failed.pk
    assert (failed.reason, again.attempt.reason) == ("first", "retake")
    assert not Assignment.objects.filter(expert=expert, pool=study.pool).exists()


def test_calibration_units_look_exactly_like_study_units_and_never_show_references():
    senior = ExpertFactory(tier="senior")
    expert, calibrated = ExpertFactory.create_batch(2)
    study, _ = gated_study(experts=[expert, calibrated], senior=senior)
    sit(calibrated, study.pool)
    client = Client()
    client.force_login(expert.user)
    calibration = client.post("/api/v1/assignments/next/?study=study-a").json()
    client.force_login(calibrated.user)
    rating = client.post("/api/v1/assignments/next/?study=study-a").json()
    assert set(calibration) == set(rating)
    assert set(calibration["unit"]) == set(rating["unit"])
    assert set(calibration["unit"]["criteria"][0]) == set(rating["unit"]["criteria"][0])
    # Nothing in the expert's view says what the reference answer is.
    body = json.dumps(calibration)
    assert "reference" not in body and "hit" not in body and "points" not in body
    client.force_login(expert.user)
    detail = client.get(f"/api/v1/assignments/{calibration['id']}/").json()
    assert "hit" not in json.dumps(detail)


def test_recalibration_when_agreement_falls_below_the_floor_and_passing_clears_it():
    senior = ExpertFactory(tier="senior")
    odd, b, c = ExpertFactory.create_batch(3)
    study, _ = gated_study(experts=[odd, b, c], senior=senior, cases=5, min_quality=0.4)
    for expert in (odd, b, c):
        sit(expert, study.pool)
    for _ in range(5):
        for expert in (odd, b, c):
            assignment = claim(expert, study.pool)
            services.assignment_submit(
                assignment=assignment, labels=all_labels(assignment, hit=expert != odd)
            )
    # odd disagrees with both others everywhere (0 %); b and c agree with each other (50 %).
    back = claim(odd, study.pool)
    assert back.kind == "calibration"
    assert CalibrationAttempt.objects.get(pk=back.attempt_id).reason == "recalibration"
    assert claim(b, study.pool) is None  # nothing left, but not sent back
    assert not CalibrationAttempt.objects.filter(expert=b, finished_at__isnull=True).exists()
    services.assignment_submit(assignment=back, labels=reference_labels(back))
    sit(odd, study.pool)
    # Passing again looks only at units after the pass: the old ones no longer count.
    assert claim(odd, study.pool) is None
    assert not CalibrationAttempt.objects.filter(expert=odd, finished_at__isnull=True).exists()


def test_opening_the_calibration_set_directly_runs_one_sitting_and_stops_after_a_pass():
    senior = ExpertFactory(tier="senior")
    expert = ExpertFactory()
    calibration = calibration_set(senior=senior)
    pool = calibration.pool
    for _ in range(2):
        assignment = claim(expert, pool)
        services.assignment_submit(assignment=assignment, labels=reference_labels(assignment))
    assert claim(expert, pool) is None
    assert CalibrationAttempt.objects.get(expert=expert).passed is True


def test_only_seniors_set_references_and_bad_rows_write_nothing():
    expert = ExpertFactory()
    senior = ExpertFactory(tier="senior")
    with pytest.raises(services.AnnotationError, match="not a senior"):
        calibration_set(senior=expert)
    dataset, _ = dataset_with_responses(cases=1)
    response = Response.objects.get(case__dataset=dataset)
    short = ReferenceRow(line=3, question_id=response.case.question_id,
                         model=response.model.name, hits=(True,))  # fmt: skip
    with pytest.raises(services.AnnotationError, match=r"line 3: case .* 4 criteria but 1"):
        services.calibration_create(name="c", dataset=dataset, references=[short], senior=senior)
    assert not Pool.objects.filter(name="c").exists()
    assert not ReferenceLabel.objects.exists()


def test_the_calibration_command_creates_requires_and_reports(tmp_path, capsys):
    ExpertFactory(tier="senior", user__username="sen")
    expert = ExpertFactory(user__username="newbie")
    study = open_study(cases=1, experts=[expert])
    dataset = study.dataset
    response = Response.objects.filter(case__dataset=dataset).select_related("case", "model")[0]
    good = {"question_id": response.case.question_id, "model": response.model.name,
            "hits": [True, False, False, False]}  # fmt: skip
    refs = tmp_path / "refs.jsonl"
    refs.write_text(json.dumps(good) + "\n\n" + '{"question_id": "x", "model": 1}\n')
    args = ["calibration", "create", "cal-1", "--dataset", dataset.name, "--senior", "sen",
            "--references", str(refs)]  # fmt: skip
    with pytest.raises(CommandError, match=r"refs.jsonl: line 3: model must be"):
        call_command(*args)
    assert not Pool.objects.filter(name="cal-1").exists()
    refs.write_text(json.dumps(good) + "\n")
    call_command(*args, "--threshold", "0.75")
    call_command("calibration", "require", "study-a", "--set", "cal-1", "--min-quality", "0.7")
    with pytest.raises(CommandError, match="between 0 and 1"):
        call_command("calibration", "require", "study-a", "--set", "cal-1", "--min-quality", "7")
    study.pool.refresh_from_db()
    assignment = claim(expert, study.pool)
    assert assignment.kind == "calibration"
    services.assignment_submit(assignment=assignment, labels=reference_labels(assignment))
    capsys.readouterr()
    call_command("calibration", "result", "newbie")
    out = capsys.readouterr().out
    assert "cal-1 (first): passed 100.0%" in out
    assert Submission.objects.filter(expert=expert, kind="calibration").count() == 1


def test_calibration_units_show_abilities_when_the_study_that_sends_the_expert_does():
    senior = ExpertFactory(tier="senior")
    expert = ExpertFactory()
    study, _ = gated_study(experts=[expert], senior=senior)
    Pool.objects.filter(pk=study.pool.pk).update(show_ability=True)
    client = Client()
    client.force_login(expert.user)
    shown = client.post("/api/v1/assignments/next/?study=study-a").json()
    assert Assignment.objects.get(public_id=shown["id"]).kind == "calibration"
    assert shown["kind"] == "rating"  # as far as the expert can tell
    assert all(c.get("ability") for c in shown["unit"]["criteria"])
    Pool.objects.filter(pk=study.pool.pk).update(show_ability=False)
    again = client.get(f"/api/v1/assignments/{shown['id']}/").json()
    assert not any(c.get("ability") for c in again["unit"]["criteria"])


def test_only_the_submission_that_finishes_a_sitting_reports_its_result():
    senior = ExpertFactory(tier="senior")
    expert = ExpertFactory()
    gated_study(experts=[expert], senior=senior)
    client = Client()
    client.force_login(expert.user)
    replies = []
    for _ in range(2):
        body = client.post("/api/v1/assignments/next/?study=study-a").json()
        assignment = Assignment.objects.get(public_id=body["id"])
        labels = reference_labels(assignment, wrong=1)
        replies.append(
            client.post(
                f"/api/v1/assignments/{body['id']}/submit/",
                {"labels": labels},
                content_type="application/json",
            ).json()
        )
    assert "calibration" not in replies[0]  # nothing while the sitting is open
    assert replies[1]["calibration"] == {
        "passed": False, "agreed": 6, "criteria": 8, "agreement": 0.75, "pass_threshold": 0.8,
    }  # fmt: skip
    assert "reference" not in json.dumps(replies) and "hit" not in json.dumps(replies)
