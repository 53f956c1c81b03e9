"""The report's "rubric changed" section: criteria whose expert labels (and so the gold) and
judge verdicts were made on different versions of their text, or on a version older than the
current one (pure: no ORM; ``rubric_changes_selectors`` gathers the versions).

An item (unit × criterion) is *mismatched* for a judge when its labels and the judge's verdict
were made on different versions (or the labels themselves on several): the agreement compares
answers to two different questions. It is *outdated* when its labels or verdict were made on a
version older than the criterion's current one: the figure is about a text the rubric no
longer has. Either makes it *affected*; each judge's agreement figures say how many of the
items they were computed over are affected.
"""

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from validation.statistics import MISSING

NONE = 0  # no label / no verdict on the row


@dataclass(frozen=True)
class RubricVersions:
    """Per item of ``StudyData``: the criterion's current version and the versions its labels
    and each judge's verdict were made on (``NONE`` where there is none)."""

    current: np.ndarray  # (n_items,) int
    label_min: np.ndarray  # (n_items,) oldest version among the item's labels
    label_max: np.ndarray  # (n_items,) newest version among the item's labels
    judges: dict[str, np.ndarray] = field(default_factory=dict)  # name → (n_items,) version
    # Per criterion id: {"case", "position", "ability"} and its edits (versions after the first,
    # each {"version", "reason", "author", "at"}).
    criteria: dict[int, dict[str, Any]] = field(default_factory=dict)
    edits: dict[int, list[dict[str, Any]]] = field(default_factory=dict)
    # Per criterion id: Counter of label versions; per judge name, per criterion id: verdicts.
    label_counts: dict[int, Counter] = field(default_factory=dict)
    judge_counts: dict[str, dict[int, Counter]] = field(default_factory=dict)


def _versions(counter: Counter | None) -> dict[str, int]:
    return {str(v): int(c) for v, c in sorted((counter or Counter()).items())}


def rubric_changes_compute(data) -> dict[str, Any] | None:
    """The section for a ``StudyData``; None when the data carries no versions."""
    rv: RubricVersions | None = getattr(data, "rubric", None)
    if rv is None:
        return None
    n = data.n_items
    labelled = rv.label_max != NONE
    labels_split = labelled & (rv.label_min != rv.label_max)
    labels_old = labelled & (rv.label_min < rv.current)
    affected = labels_split | labels_old
    judges: dict[str, dict[str, int]] = {}
    for judge in data.judges:
        verdict = rv.judges.get(judge.name, np.zeros(n, dtype=np.int64))
        judged = verdict != NONE
        mismatched = labels_split | (
            judged & labelled & ((rv.label_min != verdict) | (rv.label_max != verdict))
        )
        outdated = labels_old | (judged & (verdict < rv.current))
        used = (data.gold != MISSING) & (judge.codes != MISSING)
        judges[judge.name] = {
            "items": int(used.sum()),
            "items_affected": int((used & (mismatched | outdated)).sum()),
            "items_mismatched": int((used & mismatched).sum()),
            "items_outdated": int((used & outdated).sum()),
        }
        affected |= mismatched | outdated
    criteria = []
    criterion_ids = data.criterion
    for item_id in dict.fromkeys(criterion_ids[affected].tolist()):
        rows = criterion_ids == item_id
        info = rv.criteria.get(item_id, {})
        label_counts = rv.label_counts.get(item_id)
        judge_counts = {
            name: _versions(counts.get(item_id)) for name, counts in rv.judge_counts.items()
        }
        seen = [int(v) for v in (label_counts or {})] + [
            int(v) for counts in rv.judge_counts.values() for v in counts.get(item_id, {})
        ]
        oldest = min(seen) if seen else 1
        criteria.append(
            {
                "case": info.get("case", ""),
                "position": info.get("position"),
                "ability": info.get("ability", ""),
                "current_version": int(rv.current[rows][0]),
                "label_versions": _versions(label_counts),
                "judge_versions": {k: v for k, v in judge_counts.items() if v},
                "items": int(rows.sum()),
                "items_affected": int((rows & affected).sum()),
                # The edits made since the oldest version anything here was made on.
                "changes": [e for e in rv.edits.get(item_id, []) if e["version"] > oldest],
            }
        )
    criteria.sort(key=lambda c: (c["case"], c["position"] if c["position"] is not None else -1))
    study_criteria = np.unique(criterion_ids)
    edited = {i for i in study_criteria.tolist() if rv.edits.get(i)}
    return {
        "criteria_edited": len(edited),
        "criteria_affected": len(criteria),
        "items_affected": int(affected.sum()),
        "judges": judges,
        "criteria": criteria,
    }


def rubric_changes_for_judge(section: dict[str, Any] | None, judge: str) -> dict[str, int] | None:
    """What a judge's agreement figures say about the items they were computed over."""
    if not section:
        return None
    return section["judges"].get(judge)


COUNT_KEYS = ("criteria_edited", "criteria_affected", "items_affected")


def rubric_changes_csv_rows(section: dict[str, Any] | None):
    """The section as rows of the report's long CSV (section, judge, group, name, statistic,
    value, n, ci95_low, ci95_high, method, note)."""
    if not section:
        return
    blank = (None, None, None, None, "")
    for key in COUNT_KEYS:
        yield ("rubric_changes", "", "", "", key, section[key], *blank)
    for judge, counts in section["judges"].items():
        for key, value in counts.items():
            yield ("rubric_changes_judge", judge, "", "", key, value, *blank)
    for c in section["criteria"]:
        # Numbered from 1, as on the pages (a criterion no longer found has no position).
        number = "" if c["position"] is None else c["position"] + 1
        name = f"{c['case']} #{number}"
        yield ("rubric_changes_criterion", "", c["case"], name, "current_version",
               c["current_version"], *blank)  # fmt: skip
        for version, count in c["label_versions"].items():
            yield ("rubric_changes_criterion", "", c["case"], name, f"labels_v{version}", count,
                   *blank)  # fmt: skip
        for judge, versions in c["judge_versions"].items():
            for version, count in versions.items():
                yield ("rubric_changes_criterion", judge, c["case"], name,
                       f"verdicts_v{version}", count, *blank)  # fmt: skip
        for change in c["changes"]:
            yield ("rubric_changes_criterion", "", c["case"], name,
                   f"change_v{change['version']}", change["reason"], None, None, None, None,
                   f"{change['author']} {change['at']}")  # fmt: skip
