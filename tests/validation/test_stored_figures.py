"""A closed study's badge and report kept as data (validation.services.stored): computed once
per state of the study's inputs, read back equal after the cache is emptied (the report
rendered to the same bytes), computed afresh when an input changes, never kept for an open
study."""

import pytest
from django.core.cache import cache

from tests.builders.studies import rated_study
from validation import closing, services
from validation.models import GoldLabel, StoredFigures
from validation.report import compute as report_module
from validation.report import report_render
from validation.selectors import badge as badge_selectors
from validation.selectors.report import study_report_compute, study_report_fingerprint
from validation.services.stored import judge_badge_keep, study_figures_keep, study_report_keep

pytestmark = pytest.mark.django_db


def _refuse(**kwargs):
    raise AssertionError("computed again")


@pytest.fixture
def closed():
    return rated_study()


def test_a_kept_badge_is_read_back_equal_without_computing(closed, monkeypatch):
    computed = badge_selectors.judge_badge_for_study(study=closed, judge="judge-a")
    first = judge_badge_keep(study=closed, judge="judge-a")
    assert first == computed and first.conditions  # the gate's figures, exactly
    assert StoredFigures.objects.filter(study=closed, kind="badge:judge-a").count() == 1
    cache.clear()
    monkeypatch.setattr(badge_selectors, "judge_badge_for_study", _refuse)
    assert judge_badge_keep(study=closed, judge="judge-a") == computed
    # Each judge has its own row: judge-b's is not judge-a's.
    with pytest.raises(AssertionError, match="computed again"):
        judge_badge_keep(study=closed, judge="judge-b")


def test_gold_written_after_the_close_computes_the_badge_afresh(monkeypatch):
    study = rated_study(rate=False)
    services.study_close(study=study, unrated=closing.SENIOR)
    study.refresh_from_db()
    before = judge_badge_keep(study=study, judge="judge-a")
    unit = study.units.first()
    for item in unit.case.rubric.all():  # a senior's decision after the close
        GoldLabel.objects.create(study_unit=unit, rubric_item=item, hit=True, provenance="3/3")
    calls = []
    real = badge_selectors.judge_badge_for_study
    monkeypatch.setattr(
        badge_selectors, "judge_badge_for_study", lambda **kw: calls.append(1) or real(**kw)
    )
    after = judge_badge_keep(study=study, judge="judge-a")
    assert calls == [1] and after == real(study=study, judge="judge-a") and after != before
    assert StoredFigures.objects.filter(study=study).count() == 2


def test_a_kept_report_renders_the_same_bytes_without_computing(closed, monkeypatch):
    fresh = study_report_compute(study=closed)
    first = study_report_keep(study=closed)
    cache.clear()
    monkeypatch.setattr(report_module, "report_compute", _refuse)
    kept = study_report_keep(study=closed)
    assert StoredFigures.objects.filter(study=closed, kind="report").count() == 1
    for fmt in ("json", "csv", "html"):
        expected = report_render(fresh, fmt=fmt)
        assert report_render(first, fmt=fmt) == report_render(kept, fmt=fmt) == expected


def test_an_open_study_is_computed_every_time_and_never_stored():
    study = rated_study(rate=False)
    calls = []
    fingerprint = study_report_fingerprint(study=study)
    for _ in range(2):
        kept = study_figures_keep(
            study=study, kind="x", fingerprint=fingerprint, compute=lambda: calls.append(1)
        )
        assert kept is None
    assert calls == [1, 1] and not StoredFigures.objects.exists()


def test_a_value_that_is_not_json_is_refused_and_nothing_is_stored(closed):
    with pytest.raises(TypeError):
        study_figures_keep(
            study=closed, kind="bad", fingerprint="f", compute=lambda: {"when": object()}
        )
    assert not StoredFigures.objects.exists()


def test_a_kept_null_is_read_back_not_computed_again(closed):
    # A judge without a badge keeps a null: the next request reads it, it does not recompute.
    calls = []

    def compute():
        calls.append(1)

    for _ in range(2):
        assert (
            study_figures_keep(study=closed, kind="none", fingerprint="f", compute=compute) is None
        )
    assert calls == [1] and StoredFigures.objects.filter(kind="none").count() == 1
