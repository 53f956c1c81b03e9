"""In-memory StudyData for the pure report and statistics tests (no database)."""

import numpy as np

from validation.report.data import JudgeLabels, StudyData
from validation.statistics import MISSING

RUBRIC = [("warmth", 3.0), ("curiosity", 5.0), ("emotional_coping", -5.0), ("catastrophic", None)]


def study(*, gold_rows, judges, models=("m1",), cases=2, ratings=None, hard=(False, True)):
    """One unit per (case, model), RUBRIC criteria each; gold_rows[case][model] -> 4 labels."""
    case, unit, model, criterion, ability, points = [], [], [], [], [], []
    gold = []
    u = 0
    for c in range(cases):
        for m in range(len(models)):
            for k, (code, p) in enumerate(RUBRIC):
                case.append(c)
                unit.append(u)
                model.append(m)
                criterion.append(c * 10 + k)
                ability.append(code)
                points.append(np.nan if p is None else p)
                gold.append(gold_rows[c][m][k])
            u += 1
    gold = np.array(gold)
    if ratings is None:
        ratings = np.stack([gold, gold, gold], axis=1)
    return StudyData(
        study={"name": "s", "gate_threshold": 0.75},
        case_keys=tuple(f"c{i}" for i in range(cases)),
        models=tuple(models),
        experts=tuple(f"R-{i}" for i in range(ratings.shape[1])),
        case=np.array(case), unit=np.array(unit), model=np.array(model),
        criterion=np.array(criterion), ability=np.array(ability, dtype=object),
        points=np.array(points), hard=np.array([hard[c] for c in case]),
        ratings=ratings, gold=gold,
        provenance=np.where(gold == MISSING, "", "3/3").astype(object),
        unit_states={"gold": u},
        judges=tuple(JudgeLabels(name, (i,), np.array(codes).ravel(), 0)
                     for i, (name, codes) in enumerate(judges.items())),
    )  # fmt: skip
