"""The computed study report is kept in the cache and never served stale: every change to what
it is computed from (labels, gold, verdicts, runs and their repeats, units, rubric, model names,
the study itself and its plan, the raters' calibration sittings and active time) makes the next
request compute it again, and changes elsewhere do not."""

import pytest
from django.contrib.auth import get_user_model

from annotation import services as annotation_services
from annotation.models import Label, Submission
from benchmark.models import JudgeRun, Verdict
from benchmark.services.rubric import rubric_item_edit
from tests.builders.accounts import ExpertFactory
from tests.builders.calibration import calibration_set, sit_directly
from tests.builders.datasets import JudgeFactory, JudgeRunFactory
from tests.builders.studies import repeats_add
from validation import selectors
from validation.closing import NEVER_RATED
from validation.models import GoldLabel, StudyUnit
from validation.report import compute as report_module
from validation.report import report_compute
from validation.report.selectors import study_report_data
from validation.selectors.report import study_report_fingerprint
from validation.services.stored import study_report_keep
from validation.statistics import BootstrapSettings

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("few_resamples")]


@pytest.fixture
def study(db, rated_study_of_module):
    return selectors.study_get(name=rated_study_of_module)


@pytest.fixture
def computed(monkeypatch):
    """Counts the reports actually computed (not taken from the cache)."""
    calls = []
    real = report_module.report_compute

    def counting(**kwargs):
        calls.append(1)
        return real(**kwargs)

    monkeypatch.setattr(report_module, "report_compute", counting)
    return calls


def fresh(name: str) -> dict:
    study = selectors.study_get(name=name)
    return report_compute(data=study_report_data(study=study), bootstrap=BootstrapSettings())


def get(name: str) -> dict:
    return study_report_keep(study=selectors.study_get(name=name))


def test_a_kept_report_is_the_computed_one_and_is_computed_once(study, computed):
    first = get(study.name)
    assert get(study.name) == first == fresh(study.name)
    assert len(computed) == 1


def _flip_a_label(study):
    """A revision replaces a submission's labels: the old rows go, new ones come."""
    label = Label.objects.filter(submission__unit__pool=study.pool).order_by("pk").first()
    label.delete()
    Label.objects.create(
        submission_id=label.submission_id, rubric_item_id=label.rubric_item_id, hit=not label.hit
    )


def _flip_a_gold(study):
    gold = GoldLabel.objects.filter(study_unit__study=study).order_by("pk").first()
    gold.delete()
    GoldLabel.objects.create(
        study_unit_id=gold.study_unit_id,
        rubric_item_id=gold.rubric_item_id,
        hit=not gold.hit,
        provenance=GoldLabel.Provenance.ADJUDICATED,
    )


def _add_a_verdict(study):
    verdict = Verdict.objects.filter(run__in=study.judge_runs.all(), state="error").first()
    verdict.delete()
    Verdict.objects.create(run_id=verdict.run_id, response_id=verdict.response_id,
                           rubric_item_id=verdict.rubric_item_id, state="met")  # fmt: skip


def _stop_a_run(study):
    run = study.judge_runs.order_by("pk").first()
    run.status = "failed"
    run.save(update_fields=["status"])


def _drop_a_unit(study):
    unit = StudyUnit.objects.filter(study=study).order_by("pk").first()
    StudyUnit.objects.filter(pk=unit.pk).update(state="dropped", drop_reason=NEVER_RATED)


def _raise_the_threshold(study):
    study.gate_threshold = 0.99
    study.save(update_fields=["gate_threshold"])


def _plan_the_study(study):
    """The planning section reads the study's plan."""
    study.plan = {"half_width": 0.05, "expected_agreement": 0.8, "cases": 300}
    study.save(update_fields=["plan"])


def _rename_a_model(study):
    model = study.models_under_test.order_by("pk").first()
    model.name = "renamed"
    model.save(update_fields=["name"])


def _repeat_a_run(study):
    """The stability section reads the repeats of the study's runs (``judge --repeats``)."""
    run = study.judge_runs.order_by("pk").first()
    repeat = JudgeRunFactory(judge=run.judge, model=run.model, dataset=run.dataset,
                             repeat_of=run, repeat_index=1)  # fmt: skip
    for v in Verdict.objects.filter(run=run):
        Verdict.objects.create(run=repeat, response_id=v.response_id,
                               rubric_item_id=v.rubric_item_id, state=v.state)  # fmt: skip


def _edit_the_rubric(study):
    item = Label.objects.filter(submission__unit__pool=study.pool).first().rubric_item
    editor = get_user_model().objects.create_user("editor")
    rubric_item_edit(item=item, text="edited after the ratings", author=editor, reason="clearer")


def _ask_for_a_calibration(study):
    senior = ExpertFactory(tier="senior")
    annotation_services.pool_set_quality_policy(
        pool=study.pool, calibration=calibration_set(senior=senior)
    )


def _time_a_rating(study):
    """The raters' time per unit reads the active seconds kept with each rating; the
    workbench sends them with the submission, so here one figure changes on its own."""
    rating = Submission.objects.filter(unit__pool=study.pool).order_by("pk").first()
    Submission.objects.filter(pk=rating.pk).update(active_seconds=(rating.active_seconds or 0) + 60)


@pytest.mark.parametrize(
    "change",
    [
        _flip_a_label,
        _flip_a_gold,
        _add_a_verdict,
        _stop_a_run,
        _drop_a_unit,
        _raise_the_threshold,
        _plan_the_study,
        _rename_a_model,
        _repeat_a_run,
        _edit_the_rubric,
        _ask_for_a_calibration,
        _time_a_rating,
    ],
)
def test_every_change_to_the_inputs_computes_the_report_again(study, computed, change):
    get(study.name)
    before = study_report_fingerprint(study=selectors.study_get(name=study.name))
    change(selectors.study_get(name=study.name))
    assert study_report_fingerprint(study=selectors.study_get(name=study.name)) != before
    assert get(study.name) == fresh(study.name)
    assert len(computed) == 2  # before and after the change (fresh() is not counted)


def test_verdicts_of_a_run_the_study_does_not_check_keep_this_report(study, computed):
    get(study.name)
    model = study.models_under_test.first()
    other = JudgeRunFactory(judge=JudgeFactory(name="judge-c"), model=model, dataset=study.dataset)
    response = other.model.responses.first()
    Verdict.objects.create(run=other, response=response, rubric_item=response.case.rubric.first(),
                           state="met")  # fmt: skip
    get(study.name)
    assert len(computed) == 1


def test_a_new_verdict_of_a_repeat_run_computes_the_report_again(study, computed):
    repeats_add(study)  # repeat 2 lacks one verdict of the first case
    get(study.name)
    before = study_report_fingerprint(study=study)
    repeat = JudgeRun.objects.filter(repeat_index=2).order_by("pk").first()
    missing = next(
        v
        for v in Verdict.objects.filter(run=repeat.repeat_of)
        if not Verdict.objects.filter(
            run=repeat, response_id=v.response_id, rubric_item_id=v.rubric_item_id
        ).exists()
    )
    Verdict.objects.create(run=repeat, response_id=missing.response_id,
                           rubric_item_id=missing.rubric_item_id, state="met")  # fmt: skip
    assert study_report_fingerprint(study=selectors.study_get(name=study.name)) != before
    assert get(study.name) == fresh(study.name)
    assert len(computed) == 2


def _rater_of(study):
    return Submission.objects.filter(unit__pool=study.pool).order_by("pk").first().expert


def test_a_raters_new_calibration_sitting_computes_the_report_again(study, computed):
    calibration = calibration_set(senior=ExpertFactory(tier="senior"))
    annotation_services.pool_set_quality_policy(pool=study.pool, calibration=calibration)
    get(study.name)
    before = study_report_fingerprint(study=selectors.study_get(name=study.name))
    sit_directly(_rater_of(study), calibration, wrong=(1, 0))
    assert study_report_fingerprint(study=selectors.study_get(name=study.name)) != before
    report = get(study.name)
    assert report == fresh(study.name)
    assert 0.875 in [r["calibration_agreement"] for r in report["rater_quality"]]
    assert len(computed) == 2


def test_a_sitting_of_a_set_the_study_does_not_ask_for_keeps_this_report(study, computed):
    get(study.name)
    sit_directly(_rater_of(study), calibration_set(senior=ExpertFactory(tier="senior")),
                 wrong=(0, 0))  # fmt: skip
    get(study.name)
    assert len(computed) == 1
