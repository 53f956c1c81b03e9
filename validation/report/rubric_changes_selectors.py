"""Gathering the rubric versions of a study's labels and verdicts for the "rubric changed"
section (validation.report.rubric_changes)."""

from collections import Counter, defaultdict

import numpy as np

from annotation.selectors import labels_of_units
from benchmark.models import JudgeRun, RubricItem, Verdict
from benchmark.selectors.rubric import rubric_version_reasons
from validation.models import Study, StudyUnit
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
    item_ids = {item_id for _, item_id in unit_rows}
    # The study's rows as subqueries, not lists of thousands of ids sent with each query.
    in_study = StudyUnit.objects.filter(study=study)
    of_study = RubricItem.objects.filter(case_id__in=in_study.values("case_id"))
    criteria, latest = {}, {}
    for item_id, version, position, ability, question_id in of_study.values_list(
        "pk", "version", "position", "ability", "case__question_id"
    ):
        if item_id not in item_ids:  # a case only dropped units had
            continue
        criteria[item_id] = {"case": question_id, "position": position, "ability": ability}
        latest[item_id] = version
    current = np.zeros(n, dtype=np.int64)
    for (_, item_id), row in unit_rows.items():
        current[row] = latest[item_id]

    label_counts: dict[int, Counter] = defaultdict(Counter)
    label_rows, label_versions = [], []
    for unit_id, item_id, version in labels_of_units(
        unit_ids=in_study.values("unit_id")
    ).values_list("submission__unit_id", "rubric_item_id", "rubric_version"):
        row = unit_rows.get((unit_id, item_id))
        if row is None:
            continue
        label_rows.append(row)
        label_versions.append(version)
        label_counts[item_id][version] += 1
    # Per row, the oldest and newest version labelled (versions count from 1; NONE: no label).
    label_rows = np.asarray(label_rows, dtype=np.int64)
    label_versions = np.asarray(label_versions, dtype=np.int64)
    label_max = np.zeros(n, dtype=np.int64)
    np.maximum.at(label_max, label_rows, label_versions)
    label_min = np.full(n, np.iinfo(np.int64).max, dtype=np.int64)
    np.minimum.at(label_min, label_rows, label_versions)
    label_min[label_max == NONE] = NONE

    judges: dict[str, np.ndarray] = {}
    judge_counts: dict[str, dict[int, Counter]] = {}
    responses = in_study.values("unit__response_id")
    for name, runs in judge_runs.items():
        versions = np.zeros(n, dtype=np.int64)
        counts: dict[int, Counter] = defaultdict(Counter)
        for response_id, item_id, version in (
            Verdict.objects.filter(run__in=runs, response_id__in=responses)
            .exclude(state=Verdict.State.ERROR)
            .values_list("response_id", "rubric_item_id", "rubric_version")
        ):
            row = response_rows.get((response_id, item_id))
            if row is None:
                continue
            versions[row] = version
            counts[item_id][version] += 1
        judges[name] = versions
        judge_counts[name] = dict(counts)

    return RubricVersions(
        current=current,
        label_min=label_min,
        label_max=label_max,
        judges=judges,
        criteria=criteria,
        edits={
            item_id: edits
            for item_id, edits in rubric_version_reasons(item_ids=of_study.values("pk")).items()
            if item_id in item_ids
        },
        label_counts=dict(label_counts),
        judge_counts=judge_counts,
    )
