"""The study report's "rubric changed" section: criteria edited under the study's labels and
verdicts, counted per judge beside the agreement figures, in JSON, CSV and HTML."""

import csv
import io

import pytest

from benchmark.models import RubricItem, Verdict
from benchmark.services.rubric import rubric_item_edit
from tests.builders.accounts import UserFactory
from tests.builders.studies import rated_study
from validation.report import report_compute, report_render
from validation.report.selectors import study_report_data
from validation.statistics import BootstrapSettings

pytestmark = pytest.mark.django_db
BOOT = BootstrapSettings(resamples=20)


def _report(study) -> dict:
    return report_compute(data=study_report_data(study=study), bootstrap=BOOT)


def _criteria(study, case_position: int) -> list[RubricItem]:
    return list(
        RubricItem.objects.filter(
            case__dataset=study.dataset, case__position=case_position
        ).order_by("position")
    )


def test_untouched_rubric_reports_nothing_changed():
    study = rated_study(name="rc-none", cases=2, models=2)
    report = _report(study)
    section = report["rubric_changes"]
    assert section["criteria"] == [] and section["items_affected"] == 0
    assert section["criteria_edited"] == 0
    for judge in report["judges"]:
        assert judge["rubric_changes"]["items_affected"] == 0
        assert judge["rubric_changes"]["items"] == judge["vs_gold"]["n"]
    html = report_render(report, fmt="html")
    # Nothing was edited: the report says nothing about the rubric.
    assert 'class="rubric-note"' not in html and 'id="rubric-changes"' not in html


def test_edited_criteria_are_listed_with_versions_counts_and_reasons():
    study = rated_study(name="rc-edit", cases=2, models=2)
    editor = UserFactory(username="curator")
    outdated, mismatched = _criteria(study, 0)[1:3]
    # Edited after everyone labelled and judged: all on v1, the criterion is now v2.
    rubric_item_edit(item=outdated, text=outdated.text + "（修订）", author=editor,
                     reason="clarify the wording")  # fmt: skip
    # Edited, then judge-a re-judged it on the new text while the labels stay on v1.
    rubric_item_edit(item=mismatched, points=-7, author=editor, reason="heavier penalty")
    Verdict.objects.filter(rubric_item=mismatched, run__judge__name="judge-a").update(
        rubric_version=2
    )
    report = _report(study)
    section = report["rubric_changes"]
    assert section["criteria_edited"] == 2 and section["criteria_affected"] == 2
    # Two models answered the case: two items per criterion.
    assert section["items_affected"] == 4
    by_position = {c["position"]: c for c in section["criteria"]}
    first = by_position[outdated.position]
    assert first["current_version"] == 2 and first["items"] == 2 and first["items_affected"] == 2
    assert first["label_versions"] == {"1": 6}  # three experts × two units
    assert first["judge_versions"] == {"judge-a": {"1": 2}, "judge-b": {"1": 2}}
    assert [(c["version"], c["reason"], c["author"]) for c in first["changes"]] == [
        (2, "clarify the wording", "curator")
    ]
    second = by_position[mismatched.position]
    assert second["judge_versions"]["judge-a"] == {"2": 2}
    assert second["changes"][0]["reason"] == "heavier penalty"

    judges = {j["judge"]: j["rubric_changes"] for j in report["judges"]}
    assert judges["judge-a"] == {
        "items": judges["judge-a"]["items"],
        "items_affected": 4,
        "items_mismatched": 2,  # labels on v1, verdicts on v2
        "items_outdated": 4,  # every label here is on v1, older than the current v2
    }
    assert judges["judge-b"]["items_mismatched"] == 0
    assert judges["judge-b"]["items_affected"] == 4

    html = report_render(report, fmt="html")
    assert 'id="rubric-changes"' in html and "clarify the wording" in html
    assert "heavier penalty" in html and html.count('class="rubric-note"') == 2
    rows = list(csv.reader(io.StringIO(report_render(report, fmt="csv"))))
    assert ["rubric_changes", "", "", "", "items_affected", "4"] == rows[
        next(
            i
            for i, r in enumerate(rows)
            if r[:1] == ["rubric_changes"] and r[4] == "items_affected"
        )
    ][:6]
    judge_rows = {(r[1], r[4]): r[5] for r in rows if r[0] == "rubric_changes_judge"}
    assert judge_rows[("judge-a", "items_mismatched")] == "2"


def test_labels_made_on_different_versions_of_one_criterion_are_flagged():
    study = rated_study(name="rc-split", cases=2, models=2)
    item = _criteria(study, 0)[0]
    rubric_item_edit(item=item, text=item.text + "!", author=UserFactory(), reason="typo")
    # One expert's label was made on the new text: the three labels disagree on the version.
    from annotation.models import Label

    label = Label.objects.filter(rubric_item=item).order_by("pk").first()
    Label.objects.filter(pk=label.pk).update(rubric_version=2)
    section = _report(study)["rubric_changes"]
    (row,) = section["criteria"]
    assert row["label_versions"] == {"1": 5, "2": 1}  # three experts × two units
    # Both units: the split unit, and the other whose labels are older than the current text.
    assert row["items_affected"] == 2
