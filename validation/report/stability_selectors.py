"""Gathering the repeats (``judge --repeats``) of a study's judge runs into ``JudgeRepeats``."""

import numpy as np

from benchmark.models import JudgeRun, Verdict
from benchmark.selectors.run_lists import judge_repeats
from benchmark.selectors.verdicts import run_verdicts
from validation.report.data import ItemIndex, columns, hit_codes
from validation.report.stability import JudgeRepeats
from validation.statistics import MISSING


def judge_repeats_gather(
    *, judge_runs: dict[str, list[JudgeRun]], response_rows: ItemIndex, n: int
) -> tuple[JudgeRepeats, ...]:
    """Per judge whose study runs have repeats, the verdicts of run 0 and of each repeat on the
    study's items (``response_rows``: (response id, rubric item id) → item row). A model whose
    run has fewer repeats than another's leaves those columns missing."""
    gathered = []
    for name, runs in judge_runs.items():
        by_index: dict[int, list[int]] = {0: [run.pk for run in runs]}
        for pk, index in judge_repeats(runs=runs).values_list("pk", "repeat_index"):
            by_index.setdefault(index, []).append(pk)
        if len(by_index) < 2:
            continue
        indices = sorted(by_index)
        column = {pk: i for i, index in enumerate(indices) for pk in by_index[index]}
        codes = np.full((n, len(indices)), MISSING, dtype=np.int64)
        run_of, response_of, item_of, met = columns(
            list(
                run_verdicts(runs=list(column))
                .exclude(state=Verdict.State.ERROR)
                .values_list("run_id", "response_id", "rubric_item_id", "state")
            ),
            (np.int64, np.int64, np.int64, object),
        )
        rows = response_rows.rows(owners=response_of, items=item_of)
        found = rows >= 0
        at = np.array([column[r] for r in run_of[found].tolist()], dtype=np.int64)
        codes[rows[found], at] = hit_codes(met[found] == Verdict.State.MET.value)
        runs_by = tuple(tuple(sorted(by_index[index])) for index in indices)
        gathered.append(JudgeRepeats(name=name, runs=runs_by, codes=codes))
    return tuple(gathered)
