"""Gathering the rubric versions of a study's labels and verdicts for the "rubric changed"
section (validation.report.rubric_changes)."""

from collections import Counter, defaultdict

import numpy as np

from annotation.selectors import labels_of_units
from benchmark.models import JudgeRun, Verdict
from benchmark.selectors.rubric import cases_criteria, rubric_version_reasons
from benchmark.selectors.verdicts import run_verdicts
from validation.models import Study, StudyUnit
from validation.report.data import ItemIndex, columns
from validation.report.rubric_changes import NONE, RubricVersions


def _counts(items: np.ndarray, versions: np.ndarray) -> dict[int, Counter]:
    """Per rubric item, how many of ``items`` came on each version."""
    counts: dict[int, Counter] = defaultdict(Counter)
    pairs = Counter(zip(items.tolist(), versions.tolist(), strict=True))
    for (item_id, version), count in pairs.items():
        counts[item_id][version] = count
    return dict(counts)


def rubric_versions_gather(
    *,
    study: Study,
    criterion: np.ndarray,
    unit_rows: ItemIndex,
    response_rows: ItemIndex,
    judge_runs: dict[str, list[JudgeRun]],
) -> RubricVersions:
    """Versions per item, aligned with the rows of ``StudyData`` (``criterion``: each row's
    rubric item id) through the same indexes the report's selector built: (annotation unit
    id, rubric item id) and (response id, rubric item id) → row. Labels of every kind count
    (ratings, and a senior's decisions, which make an adjudicated gold)."""
    n = len(criterion)
    item_ids = set(criterion.tolist())
    # The study's rows as subqueries, not lists of thousands of ids sent with each query.
    in_study = StudyUnit.objects.filter(study=study)
    of_study = cases_criteria(case_ids=in_study.values("case_id"))
    criteria, latest = {}, {}
    for item_id, version, position, ability, question_id in of_study.values_list(
        "pk", "version", "position", "ability", "case__question_id"
    ):
        if item_id not in item_ids:  # a case only dropped units had
            continue
        criteria[item_id] = {"case": question_id, "position": position, "ability": ability}
        latest[item_id] = version
    current = np.array([latest[item_id] for item_id in criterion.tolist()], dtype=np.int64)

    unit_of, item_of, versions = columns(
        list(
            labels_of_units(unit_ids=in_study.values("unit_id")).values_list(
                "submission__unit_id", "rubric_item_id", "rubric_version"
            )
        ),
        (np.int64,) * 3,
    )
    rows = unit_rows.rows(owners=unit_of, items=item_of)
    found = rows >= 0
    label_rows, label_versions = rows[found], versions[found]
    label_counts = _counts(item_of[found], label_versions)
    # Per row, the oldest and newest version labelled (versions count from 1; NONE: no label).
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
        response_of, item_of, judged = columns(
            list(
                run_verdicts(runs=runs, responses=responses)
                .exclude(state=Verdict.State.ERROR)
                .values_list("response_id", "rubric_item_id", "rubric_version")
            ),
            (np.int64,) * 3,
        )
        rows = response_rows.rows(owners=response_of, items=item_of)
        found = rows >= 0
        versions[rows[found]] = judged[found]
        judges[name] = versions
        judge_counts[name] = _counts(item_of[found], judged[found])

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
        label_counts=label_counts,
        judge_counts=judge_counts,
    )
