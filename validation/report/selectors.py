"""Gathering one study from the database into the plain arrays of ``StudyData``."""

from collections import Counter, defaultdict
from dataclasses import dataclass, replace

import numpy as np

from annotation.selectors import rating_labels
from benchmark.models import JudgeRun, Verdict
from benchmark.selectors.datasets import cases_by_id
from benchmark.selectors.models_under_test import model_names_by_id
from benchmark.selectors.rubric import cases_criteria
from benchmark.selectors.runs import runs_latest
from benchmark.selectors.verdicts import run_verdicts
from validation.models import GoldLabel, Study, StudyUnit
from validation.report.adjudication_selectors import adjudication_decisions
from validation.report.data import ItemIndex, JudgeLabels, StudyData, columns, hit_codes
from validation.report.dropped import DroppedUnit
from validation.report.notes_selectors import rater_notes_gather
from validation.report.rater_quality_selectors import rater_quality_gather
from validation.report.rubric_changes_selectors import rubric_versions_gather
from validation.report.stability_selectors import judge_repeats_gather
from validation.selectors import study_units_with_ratings
from validation.statistics import MISSING


def _judge_runs(study: Study) -> dict[str, list[JudgeRun]]:
    """The study's runs grouped by judge; a judge run twice on a model counts the run the
    leaderboard reads (``runs_latest``: the newest finished one)."""
    latest = runs_latest(study.judge_runs.select_related("judge"))
    grouped: dict[str, list[JudgeRun]] = defaultdict(list)
    for run in sorted(latest, key=lambda r: (r.judge.name, r.pk)):
        grouped[run.judge.name].append(run)
    return dict(grouped)


def _dropped(study: Study) -> tuple[DroppedUnit, ...]:
    return tuple(
        DroppedUnit(
            case=u.case.question_id,
            model=u.model.name,
            unit=u.unit.token,
            reason=u.drop_reason,
            ratings=u.ratings,
        )
        for u in study_units_with_ratings(study=study)
        .filter(state=StudyUnit.State.DROPPED)
        .select_related("case", "model", "unit")
        .order_by("case__position", "model__name", "pk")
    )


@dataclass(frozen=True)
class _Items:
    """A study's items (``StudyData`` without its other sections) and how to find them."""

    data: StudyData
    by_unit: ItemIndex  # (annotation unit id, rubric item id) -> row
    by_response: ItemIndex  # (response id, rubric item id) -> row
    judge_runs: dict[str, list[JudgeRun]]


def _items_gather(study: Study) -> _Items:
    # Dropped units are no items: neither agreement nor missing coverage (listed apart).
    units = list(
        StudyUnit.objects.filter(study=study)
        .exclude(state=StudyUnit.State.DROPPED)
        .order_by("pk")
        .values_list("pk", "unit_id", "unit__response_id", "case_id", "model_id", "state")
    )
    su_ids, unit_ids, response_ids, unit_cases, unit_models = columns(
        [u[:5] for u in units], (np.int64,) * 5
    )
    # The study's rows as subqueries, not lists of thousands of ids sent with each query.
    in_study = StudyUnit.objects.filter(study=study)
    item_ids, item_cases, abilities, points = columns(
        list(
            cases_criteria(case_ids=in_study.values("case_id"))
            .order_by("case_id", "position")
            .values_list("id", "case_id", "ability", "points")
        ),
        (np.int64, np.int64, object, float),  # points None (catastrophic) -> NaN
    )
    cases, hard_cases = {}, set()
    for pk, question_id, difficulty in cases_by_id(ids=in_study.values("case_id")).values_list(
        "pk", "question_id", "difficulty"
    ):
        cases[pk] = question_id
        if difficulty == "hard":
            hard_cases.add(pk)
    case_ids = np.unique(unit_cases)
    model_ids = np.unique(unit_models)
    model_names = model_names_by_id(ids=model_ids.tolist())

    # Each unit's items are its case's criteria in order, the units in order: a unit's
    # criteria are one slice of the items ordered by case.
    first = np.searchsorted(item_cases, unit_cases, side="left")
    count = np.searchsorted(item_cases, unit_cases, side="right") - first
    unit = np.repeat(np.arange(len(units), dtype=np.int64), count)
    offset = np.cumsum(count) - count
    item = np.arange(int(count.sum()), dtype=np.int64) + np.repeat(first - offset, count)
    n = len(item)
    criterion = item_ids[item]
    by_unit = ItemIndex(owners=unit_ids[unit], items=criterion)
    by_response = ItemIndex(owners=response_ids[unit], items=criterion)

    unit_of, item_of, pseudonyms, hits = columns(
        list(
            rating_labels()
            .filter(submission__unit__in=in_study.values("unit_id"))
            .values_list(
                "submission__unit_id", "rubric_item_id", "submission__expert__pseudonym", "hit"
            )
        ),
        (np.int64, np.int64, object, bool),
    )
    rows = by_unit.rows(owners=unit_of, items=item_of)
    found = rows >= 0
    # Rater columns in the order the raters' first label comes.
    experts = {p: column for column, p in enumerate(dict.fromkeys(pseudonyms[found].tolist()))}
    ratings = np.full((n, len(experts)), MISSING, dtype=np.int64)
    rater = np.array([experts[p] for p in pseudonyms[found]], dtype=np.int64)
    ratings[rows[found], rater] = hit_codes(hits[found])

    gold = np.full(n, MISSING, dtype=np.int64)
    provenance = np.full(n, "", dtype=object)
    su_of, item_of, hits, provenances = columns(
        list(
            GoldLabel.objects.filter(study_unit__study=study).values_list(
                "study_unit_id", "rubric_item_id", "hit", "provenance"
            )
        ),
        (np.int64, np.int64, bool, object),
    )
    rows = ItemIndex(owners=su_ids[unit], items=criterion).rows(owners=su_of, items=item_of)
    found = rows >= 0
    gold[rows[found]] = hit_codes(hits[found])
    provenance[rows[found]] = provenances[found]

    judges = []
    responses = in_study.values("unit__response_id")
    judge_runs = _judge_runs(study)
    for name, runs in judge_runs.items():
        codes = np.full(n, MISSING, dtype=np.int64)
        response_of, item_of, states = columns(
            list(
                run_verdicts(runs=runs, responses=responses).values_list(
                    "response_id", "rubric_item_id", "state"
                )
            ),
            (np.int64, np.int64, object),
        )
        rows = by_response.rows(owners=response_of, items=item_of)
        error = states == Verdict.State.ERROR.value
        judged = (rows >= 0) & ~error
        codes[rows[judged]] = hit_codes(states[judged] == Verdict.State.MET.value)
        judges.append(
            JudgeLabels(
                name=name,
                runs=tuple(r.pk for r in runs),
                codes=codes,
                errors=int(((rows >= 0) & error).sum()),
            )
        )

    case_index = np.searchsorted(case_ids, unit_cases)
    data = StudyData(
        study={
            "name": study.name,
            "dataset": f"{study.dataset.name} v{study.dataset.version}",
            "demo": study.dataset.is_demo,
            "status": study.pool.status,
            "seed": study.seed,
            "fraction": study.fraction,
            "gate_threshold": study.gate_threshold,
            "plan": study.plan,
            "look_every": study.look_every,
            "planned_cases": study.planned_cases,
            "gate": study.gate_config,
            "closed_at": study.closed_at.isoformat() if study.closed_at else None,
        },
        case_keys=tuple(cases[c] for c in case_ids.tolist()),
        models=tuple(model_names[m] for m in model_ids.tolist()),
        experts=tuple(experts),
        case=case_index[unit],
        unit=unit,
        model=np.searchsorted(model_ids, unit_models)[unit],
        criterion=criterion,
        ability=abilities[item],
        points=points[item],
        hard=np.isin(unit_cases, list(hard_cases))[unit],
        ratings=ratings,
        gold=gold,
        provenance=provenance,
        unit_states=dict(Counter(u[5] for u in units)),
        judges=tuple(judges),
    )
    data.check()
    return _Items(data=data, by_unit=by_unit, by_response=by_response, judge_runs=judge_runs)


def study_items_data(*, study: Study) -> StudyData:
    """Every item of the study (unit × criterion) with its expert labels, gold and verdicts,
    without the report's other sections (adjudications, dropped units, notes, repeats, rater
    quality, rubric versions): what the judge's gate reads."""
    return _items_gather(study).data


def study_report_data(*, study: Study) -> StudyData:
    """Every item of the study with its expert labels, gold and verdicts, and every section
    of the report."""
    items = _items_gather(study)
    n = items.data.n_items
    data = replace(
        items.data,
        adjudications=adjudication_decisions(study=study),
        dropped=_dropped(study),
        notes=rater_notes_gather(study=study),
        repeats=judge_repeats_gather(
            judge_runs=items.judge_runs, response_rows=items.by_response, n=n
        ),
        raters=rater_quality_gather(study=study, pseudonyms=items.data.experts),
        rubric=rubric_versions_gather(
            study=study,
            criterion=items.data.criterion,
            unit_rows=items.by_unit,
            response_rows=items.by_response,
            judge_runs=items.judge_runs,
        ),
    )
    data.check()
    return data
