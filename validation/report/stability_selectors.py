"""Gathering the repeats (``judge --repeats``) of a study's judge runs into ``JudgeRepeats``."""

import numpy as np

from benchmark.models import JudgeRun, Verdict
from validation.report.data import HIT, MISS
from validation.report.stability import JudgeRepeats
from validation.statistics import MISSING


def judge_repeats_gather(
    *, judge_runs: dict[str, list[JudgeRun]], response_rows: dict[tuple[int, int], int], n: int
) -> tuple[JudgeRepeats, ...]:
    """Per judge whose study runs have repeats, the verdicts of run 0 and of each repeat on the
    study's items (``response_rows``: (response id, rubric item id) → item row). A model whose
    run has fewer repeats than another's leaves those columns missing."""
    gathered = []
    for name, runs in judge_runs.items():
        by_index: dict[int, list[int]] = {0: [run.pk for run in runs]}
        for pk, index in JudgeRun.objects.filter(repeat_of__in=runs).values_list(
            "pk", "repeat_index"
        ):
            by_index.setdefault(index, []).append(pk)
        if len(by_index) < 2:
            continue
        indices = sorted(by_index)
        column = {pk: i for i, index in enumerate(indices) for pk in by_index[index]}
        codes = np.full((n, len(indices)), MISSING, dtype=np.int64)
        for run_id, response_id, item_id, state in Verdict.objects.filter(
            run_id__in=list(column)
        ).values_list("run_id", "response_id", "rubric_item_id", "state"):
            row = response_rows.get((response_id, item_id))
            if row is not None and state != Verdict.State.ERROR:
                codes[row, column[run_id]] = HIT if state == Verdict.State.MET else MISS
        runs_by = tuple(tuple(sorted(by_index[index])) for index in indices)
        gathered.append(JudgeRepeats(name=name, runs=runs_by, codes=codes))
    return tuple(gathered)
