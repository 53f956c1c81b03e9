"""The "rubric changed" rules on hand-built arrays (no database)."""

from collections import Counter

import numpy as np

from validation.report.data import HIT, MISS, JudgeLabels, StudyData
from validation.report.rubric_changes import RubricVersions, rubric_changes_compute
from validation.statistics import MISSING


def _data(*, label_min, label_max, current, verdicts, judge_codes=None) -> StudyData:
    # Items: criterion 10 and 20, each in units 0 and 1 (one case, two models).
    n = 4
    codes = np.array(judge_codes if judge_codes is not None else [HIT, MISS, HIT, MISS])
    rubric = RubricVersions(
        current=np.array(current),
        label_min=np.array(label_min),
        label_max=np.array(label_max),
        judges={"j": np.array(verdicts)},
        criteria={
            10: {"case": "c1", "position": 0, "ability": "warmth"},
            20: {"case": "c1", "position": 1, "ability": "curiosity"},
        },
        edits={20: [{"version": 2, "reason": "why", "author": "a", "at": "2026-11-22"}]},
        label_counts={10: Counter({1: 6}), 20: Counter({1: 3, 2: 3})},
        judge_counts={"j": {10: Counter({1: 2}), 20: Counter({2: 2})}},
    )
    return StudyData(
        study={},
        case_keys=("c1",),
        models=("m0", "m1"),
        experts=("e1", "e2", "e3"),
        case=np.zeros(n, dtype=np.int64),
        unit=np.array([0, 1, 0, 1]),
        model=np.array([0, 1, 0, 1]),
        criterion=np.array([10, 10, 20, 20]),
        ability=np.array(["warmth", "warmth", "curiosity", "curiosity"], dtype=object),
        points=np.array([3.0, 3.0, 2.0, 2.0]),
        hard=np.zeros(n, dtype=bool),
        ratings=np.full((n, 3), HIT),
        gold=np.array([HIT, MISS, HIT, MISS]),
        provenance=np.array(["3/3"] * n, dtype=object),
        unit_states={"gold": 2},
        judges=(JudgeLabels(name="j", runs=(1,), codes=codes, errors=0),),
        rubric=rubric,
    )


def test_same_current_version_everywhere_is_not_affected():
    section = rubric_changes_compute(
        _data(
            label_min=[1, 1, 2, 2],
            label_max=[1, 1, 2, 2],
            current=[1, 1, 2, 2],
            verdicts=[1, 1, 2, 2],
        )
    )
    assert section["criteria"] == [] and section["items_affected"] == 0
    assert section["criteria_edited"] == 1  # criterion 20 has an edit, all on its current text
    assert section["judges"]["j"] == {
        "items": 4,
        "items_affected": 0,
        "items_mismatched": 0,
        "items_outdated": 0,
    }


def test_mismatch_outdated_and_split_labels():
    # Unit 0 of criterion 20: labels on v1 and v2 (split); unit 1: labels v1, verdict v2.
    section = rubric_changes_compute(
        _data(
            label_min=[1, 1, 1, 1],
            label_max=[1, 1, 2, 1],
            current=[1, 1, 2, 2],
            verdicts=[1, 1, 2, 2],
        )
    )
    assert section["items_affected"] == 2
    assert section["judges"]["j"] == {
        "items": 4,
        "items_affected": 2,
        "items_mismatched": 2,
        "items_outdated": 2,
    }
    (row,) = section["criteria"]
    assert (row["case"], row["position"], row["current_version"]) == ("c1", 1, 2)
    assert row["label_versions"] == {"1": 3, "2": 3}
    assert row["judge_versions"] == {"j": {"2": 2}}
    assert [c["reason"] for c in row["changes"]] == ["why"]


def test_items_without_gold_or_verdict_do_not_count_for_the_judge():
    section = rubric_changes_compute(
        _data(
            label_min=[1, 1, 1, 1],
            label_max=[1, 1, 1, 1],
            current=[2, 2, 1, 1],
            verdicts=[1, 1, 1, 1],
            judge_codes=[MISSING, HIT, HIT, HIT],
        )
    )
    # Criterion 10 is outdated in both units, but the judge has no usable verdict on unit 0.
    assert section["items_affected"] == 2
    assert section["judges"]["j"]["items"] == 3
    assert section["judges"]["j"]["items_outdated"] == 1


def test_no_versions_no_section():
    data = _data(label_min=[1] * 4, label_max=[1] * 4, current=[1] * 4, verdicts=[1] * 4)
    object.__setattr__(data, "rubric", None)
    assert rubric_changes_compute(data) is None
