"""Rater notes (the note an expert writes on a criterion label) reach the study export (CSV and
JSONL, beside each rater's pseudonymous label) and the study report (JSON per unit and
criterion, the long CSV, an escaped HTML section); never a user name."""

import csv
import io
import json

import pytest
from django.core.management import call_command
from django.utils import translation

from annotation import selectors as annotation_selectors
from annotation import services as annotation_services
from benchmark.models import RubricItem
from tests.builders.accounts import ExpertFactory
from tests.builders.studies import dataset_with_responses
from validation import selectors, services
from validation.report import report_compute, report_html
from validation.report.notes import NoteRecord, notes_compute
from validation.report.selectors import study_report_data
from validation.statistics import BootstrapSettings

pytestmark = pytest.mark.django_db
XSS = '<script>alert("note")</script>'
FORMULA = "=HYPERLINK(1)"


def note_for(index: int, item: RubricItem) -> str:
    """Expert 0 notes every first criterion (hostile text), expert 2 the second of case 0."""
    if index == 0 and item.position == 0:
        return f"{XSS} 语气不够温暖\nsecond line"
    if index == 2 and item.position == 1 and item.case.position == 0:
        return FORMULA
    return ""


@pytest.fixture
def noted_study():
    dataset, models = dataset_with_responses(cases=2, models=1)
    experts = ExpertFactory.create_batch(3)
    study = services.study_create(name="noted", dataset=dataset, models=models, fraction=1.0,
                                  seed=3, experts=experts)  # fmt: skip
    services.study_open(study=study)
    for index, expert in enumerate(experts):
        while assignment := annotation_services.assignment_claim_next(
            user=expert.user, pool=study.pool
        ):
            tokens = annotation_selectors.criterion_tokens(assignment=assignment)
            items = RubricItem.objects.select_related("case").in_bulk(tokens.values())
            labels = [
                {
                    "criterion": t,
                    "hit": items[pk].position % 2 == 0,
                    "note": note_for(index, items[pk]),
                }
                for t, pk in tokens.items()
            ]
            annotation_services.assignment_submit(assignment=assignment, labels=labels)
    services.study_close(study=study)
    return selectors.study_get(name="noted"), experts


def export(name: str, fmt: str) -> str:
    out = io.StringIO()
    call_command("study", "export", name, "--format", fmt, stdout=out, stderr=io.StringIO())
    return out.getvalue()


def test_the_export_carries_each_raters_note_beside_the_pseudonym(noted_study):
    study, experts = noted_study
    text = export(study.name, "csv")
    rows = list(csv.DictReader(io.StringIO(text)))
    header = list(rows[0])
    for slot in (1, 2, 3):
        assert header.index(f"rater_{slot}_note") == header.index(f"rater_{slot}_label") + 1
    assert header.index("adjudicator_note") == header.index("adjudicator_label") + 1
    first = experts[0].pseudonym
    noted = [
        (r[f"rater_{s}"], r[f"rater_{s}_note"]) for r in rows for s in (1, 2, 3)
        if r[f"rater_{s}_note"]
    ]  # fmt: skip
    assert sorted(n for _, n in noted) == sorted(
        [f"{XSS} 语气不够温暖\nsecond line"] * 2 + ["'" + FORMULA]
    )  # one per case for expert 0; the formula is neutralised for a spreadsheet
    assert {r for r, n in noted if n.startswith("<script")} == {first}
    for expert in experts:
        assert expert.user.username not in text
    lines = [json.loads(line) for line in export(study.name, "jsonl").splitlines()]
    assert FORMULA in {line["rater_3_note"] for line in lines} | {
        line[f"rater_{s}_note"] for line in lines for s in (1, 2, 3)
    }


def test_the_report_lists_the_notes_per_unit_and_criterion(noted_study):
    study, experts = noted_study
    report = report_compute(
        data=study_report_data(study=study), bootstrap=BootstrapSettings(resamples=100)
    )
    section = report["rater_notes"]
    assert section["notes"] == 3 and section["criteria"] == 3 and section["units"] == 2
    first = section["items"][0]
    assert set(first) >= {"case", "model", "unit", "criterion", "criterion_text", "ability",
                          "gold", "notes"}  # fmt: skip
    assert first["criterion"] == 0 and first["gold"] == "met"
    assert first["notes"] == [
        {"rater": experts[0].pseudonym, "label": "met", "note": f"{XSS} 语气不够温暖\nsecond line",
         "version": 1}
    ]  # fmt: skip
    text = json.dumps(report, ensure_ascii=False)
    for expert in experts:
        assert expert.user.username not in text


def test_the_report_html_shows_the_notes_escaped_and_in_chinese(noted_study):
    study, _ = noted_study
    report = report_compute(
        data=study_report_data(study=study), bootstrap=BootstrapSettings(resamples=100)
    )
    html = report_html(report)
    assert 'id="rater-notes"' in html and "Rater notes" in html
    assert "<script>alert" not in html and "&lt;script&gt;alert(&quot;note&quot;)" in html
    with translation.override("zh-hans"):
        chinese = report_html(report)
    assert "标注者备注" in chinese and "Rater notes" not in chinese


def test_the_long_csv_has_a_row_per_note(noted_study):
    study, _ = noted_study
    out = io.StringIO()
    call_command("study", "report", study.name, "--format", "csv", "--resamples", "100",
                 stdout=out)  # fmt: skip
    rows = [r for r in csv.DictReader(io.StringIO(out.getvalue())) if r["section"] == "rater_note"]
    assert len(rows) == 3
    assert {r["value"] for r in rows} >= {"'" + FORMULA}


def test_notes_compute_is_pure_and_orders_by_case_model_criterion():
    records = [
        NoteRecord("q2", "m", "u2", 0, "t", "warmth", "R-b", True, "b", 1, None),
        NoteRecord("q1", "m", "u1", 1, "t", "warmth", "R-b", False, "y", 1, True),
        NoteRecord("q1", "m", "u1", 1, "t", "warmth", "R-a", True, "x", 2, True),
    ]
    section = notes_compute(records)
    assert [(i["case"], i["criterion"]) for i in section["items"]] == [("q1", 1), ("q2", 0)]
    assert [n["rater"] for n in section["items"][0]["notes"]] == ["R-a", "R-b"]
    assert section["items"][1]["gold"] is None
    assert notes_compute([]) == {"notes": 0, "criteria": 0, "units": 0, "items": []}
