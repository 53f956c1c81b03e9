"""The self-contained HTML files the command line writes (leaderboard, study report) show a
bidirectional control in imported text as ``[U+202E]``, as the served pages do (issue 40,
item 8): a file opened in a browser is a page too."""

import pytest

from annotation import selectors as annotation_selectors
from annotation import services as annotation_services
from benchmark.leaderboard_html import render_html
from benchmark.models import RubricItem
from config.page_safety import BIDI_CONTROLS
from tests.builders.accounts import ExpertFactory
from tests.builders.leaderboards import board, model
from tests.builders.studies import dataset_with_responses
from validation import services
from validation.report import report_compute, report_html
from validation.report.selectors import study_report_data
from validation.statistics import BootstrapSettings

TEXT = "model\u202eledom\u2066x\u2069"


def assert_shown(html: str) -> None:
    assert not [c for c in BIDI_CONTROLS if c in html]
    assert "[U+202E]" in html and "[U+2066]" in html


def test_the_leaderboard_file_shows_bidi_controls():
    assert_shown(render_html(board([model(TEXT)])))


@pytest.mark.django_db
def test_the_study_report_file_shows_bidi_controls():
    dataset, models = dataset_with_responses(cases=1, models=1)
    RubricItem.objects.update(text=f"共情{TEXT}")
    experts = ExpertFactory.create_batch(3)
    study = services.study_create(
        name="bidi", dataset=dataset, models=models, fraction=1.0, seed=3, experts=experts
    )
    services.study_open(study=study)
    for expert in experts:
        assignment = annotation_services.assignment_claim_next(user=expert.user, pool=study.pool)
        tokens = annotation_selectors.criterion_tokens(assignment=assignment)
        labels = [{"criterion": t, "hit": True, "note": TEXT} for t in tokens]
        annotation_services.assignment_submit(assignment=assignment, labels=labels)
    services.study_close(study=study)
    report = report_compute(
        data=study_report_data(study=study), bootstrap=BootstrapSettings(resamples=50)
    )
    assert_shown(report_html(report))
