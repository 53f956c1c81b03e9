"""The study report of an open study nobody has rated yet. A study of its own, beside
test_report_db.py's, which its tests share (one per module)."""

import pytest

from tests.builders.studies import rated_study
from validation.report import report_compute
from validation.report.selectors import study_report_data
from validation.statistics import BootstrapSettings

pytestmark = pytest.mark.django_db


def test_undefined_figures_carry_reasons_not_crashes():
    study = rated_study(name="unrated", cases=3, models=2, rate=False)
    # Open and nobody has rated yet: no gold, no expert figures, but a judge.
    data = study_report_data(study=study)
    assert (data.gold == -1).all()
    report = report_compute(data=data, bootstrap=BootstrapSettings(resamples=200))
    judge = report["judges"][0]
    assert judge["vs_gold"]["n"] == 0 and judge["vs_gold"]["agreement"]["value"] is None
    assert "no item" in judge["vs_gold"]["agreement"]["reason"]
    assert judge["gate"]["decision"] == "not_enough_data"
    assert judge["gate"]["conditions"][0]["reason"].startswith("no item")
    assert judge["score_effect"]["rank_agreement"]["kendall_tau"] is None
    assert report["experts"]["n_experts"] == 0
    assert report["experts"]["krippendorff_alpha"]["value"] is None
    assert report["counts"]["units_by_state"]["pending"] == 6
