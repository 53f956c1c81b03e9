"""Gathering the rubric versions of a study's labels and verdicts for the "rubric changed"
section (validation.report.rubric_changes)."""

from collections import Counter

import numpy as np

from annotation.selectors import labels_of_units
from benchmark.models import JudgeRun, RubricItem, Verdict
from benchmark.selectors.rubric import rubric_version_reasons
from validation.models import Study
from validation.report.rubric_changes import NONE, RubricVersions


def rubric_versions_gather(
    *,
    study: Study,
    unit_rows: dict[tuple[int, int], int],
    response_rows: dict[tuple[int, int], int],
    judge_runs: dict[str, list[JudgeRun]],
    n: int,
) -> RubricVersions:
    """Versions per item, aligned with the rows of ``StudyData`` through the same maps the
    report's selector built: (annotation unit id, rubric item id) and (response id, rubric
    item id) → row. Labels of every kind count (ratings, and a senior's decisions, which make
    an adjudicated gold)."""
    item_ids = sorted({item_id for _, item_id in unit_rows})
    criteria, latest = {}, {}
    for item_id, version, position, ability, question_id in RubricItem.objects.filter(
        pk__in=item_ids
    ).values_list("pk", "version", "position", "ability", "case__question_id"):
        criteria[item_id] = {"case": question_id, "position": position, "ability": ability}
        latest[item_id] = version
    current = np.zeros(n, dtype=np.int64)
    for (_, item_id), row in unit_rows.items():
        current[row] = latest[item_id]

    label_min = np.zeros(n, dtype=np.int64)
    label_max = np.zeros(n, dtype=np.int64)
    label_counts: dict[int, Counter] = {}
    unit_ids = sorted({unit_id for unit_id, _ in unit_rows})
    for unit_id, item_id, version in labels_of_units(unit_ids=unit_ids).values_list(
        "submission__unit_id", "rubric_item_id", "rubric_version"
    ):
        row = unit_rows.get((unit_id, item_id))
        if row is None:
            continue
        label_min[row] = version if label_min[row] == NONE else min(label_min[row], version)
        label_max[row] = max(label_max[row], version)
        label_counts.setdefault(item_id, Counter())[version] += 1

    judges: dict[str, np.ndarray] = {}
    judge_counts: dict[str, dict[int, Counter]] = {}
    responses = sorted({response_id for response_id, _ in response_rows})
    for name, runs in judge_runs.items():
        versions = np.zeros(n, dtype=np.int64)
        counts: dict[int, Counter] = {}
        for response_id, item_id, version in (
            Verdict.objects.filter(run__in=runs, response_id__in=responses)
            .exclude(state=Verdict.State.ERROR)
            .values_list("response_id", "rubric_item_id", "rubric_version")
        ):
            row = response_rows.get((response_id, item_id))
            if row is None:
                continue
            versions[row] = version
            counts.setdefault(item_id, Counter())[version] += 1
        judges[name] = versions
        judge_counts[name] = counts

    return RubricVersions(
        current=current,
        label_min=label_min,
        label_max=label_max,
        judges=judges,
        criteria=criteria,
        edits=rubric_version_reasons(item_ids=item_ids),
        label_counts=label_counts,
        judge_counts=judge_counts,
    )
