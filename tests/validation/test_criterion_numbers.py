"""Issue 39: criteria are numbered from 1 wherever a person reads the number (the report's
tables and CSV names, the disagreement viewer), as in the workbench; data fields keep the
0-based rubric position."""

from django.template.loader import render_to_string

from validation.report.adjudication import COUNT_KEYS, adjudication_csv_rows

DECISION = {
    "case": "case-1",
    "model": "m",
    "unit": "U-1",
    "criterion": 0,
    "criterion_text": "温暖",
    "ability": "warmth",
    "kind": "split",
    "met": 2,
    "not_met": 1,
    "decision": "met",
    "overturned": False,
    "reason": "r",
    "senior": "S-1",
    "tally": "2/1",
}


def test_the_report_numbers_the_first_criterion_1():
    section = {
        "units": 1,
        "units_split": 1,
        "units_incomplete": 0,
        "criteria": 1,
        "overturned": 0,
        "upheld": 1,
        "no_majority": 0,
        "units_waiting": 0,
        "decisions": [DECISION],
    }
    html = render_to_string("validation/_adjudication.html", {"a": section})
    assert "#1 " in html and "#0" not in html
    notes = {
        "notes": 1,
        "criteria": 1,
        "units": 1,
        "items": [
            {**DECISION, "gold": "met", "notes": [{"rater": "R", "label": "met", "note": "n"}]}
        ],
    }
    html = render_to_string("validation/_rater_notes.html", {"notes": notes})
    assert "#1 " in html and "#0" not in html
    changes = {
        "criteria_edited": 1,
        "criteria_affected": 1,
        "items_affected": 1,
        "criteria": [
            {
                "case": "case-1",
                "position": 0,
                "ability": "warmth",
                "current_version": 2,
                "label_versions": {},
                "judge_versions": {},
                "items_affected": 1,
                "items": 1,
                "changes": [],
            }
        ],
    }
    html = render_to_string("validation/_rubric_changes.html", {"r": changes})
    assert "#1 " in html and "#0" not in html
    counts = dict.fromkeys(COUNT_KEYS, 0)
    names = {row[3] for row in adjudication_csv_rows({**counts, "decisions": [DECISION]}) if row[3]}
    assert names == {"U-1 #1 温暖"}
