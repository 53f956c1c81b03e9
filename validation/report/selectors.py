"""Gathering one study from the database into the plain arrays of ``StudyData``."""

from collections import Counter, defaultdict

import numpy as np

from annotation.selectors import rating_labels
from benchmark.models import Case, JudgeRun, ModelUnderTest, RubricItem, Verdict
from benchmark.selectors.runs import runs_latest
from validation.models import GoldLabel, Study, StudyUnit
from validation.report.adjudication_selectors import adjudication_decisions
from validation.report.data import HIT, MISS, JudgeLabels, StudyData
from validation.report.dropped import DroppedUnit
from validation.report.notes_selectors import rater_notes_gather
from validation.report.rater_quality_selectors import rater_quality_gather
from validation.report.rubric_changes_selectors import rubric_versions_gather
from validation.report.stability_selectors import judge_repeats_gather
from validation.selectors import study_units_with_ratings
from validation.statistics import MISSING


def _code(hit: bool) -> int:
    return HIT if hit else MISS


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


def study_report_data(*, study: Study) -> StudyData:
    """Every item of the study (unit × criterion) with its expert labels, gold and verdicts."""
    # Dropped units are no items: neither agreement nor missing coverage (listed apart).
    units = list(
        StudyUnit.objects.filter(study=study)
        .exclude(state=StudyUnit.State.DROPPED)
        .order_by("pk")
        .values_list("pk", "unit_id", "unit__response_id", "case_id", "model_id", "state")
    )
    # The study's rows as subqueries, not lists of thousands of ids sent with each query.
    in_study = StudyUnit.objects.filter(study=study)
    case_ids = sorted({u[3] for u in units})
    items_of: dict[int, list[tuple[int, str, int | None]]] = defaultdict(list)
    for item_id, case_id, ability, points in (
        RubricItem.objects.filter(case_id__in=in_study.values("case_id"))
        .order_by("case_id", "position")
        .values_list("id", "case_id", "ability", "points")
    ):
        items_of[case_id].append((item_id, ability, points))
    cases, hard_cases = {}, set()
    for pk, question_id, difficulty in Case.objects.filter(
        pk__in=in_study.values("case_id")
    ).values_list("pk", "question_id", "difficulty"):
        cases[pk] = question_id
        if difficulty == "hard":
            hard_cases.add(pk)
    model_ids = sorted({u[4] for u in units})
    model_names = dict(ModelUnderTest.objects.filter(pk__in=model_ids).values_list("pk", "name"))
    case_index = {case_id: i for i, case_id in enumerate(case_ids)}
    model_index = {model_id: i for i, model_id in enumerate(model_ids)}

    rows: list[tuple[int, int, int, int, str, float, bool]] = []  # case, unit, model, item, ..
    row_of: dict[tuple[int, int], int] = {}  # (annotation unit id, rubric item id) -> row
    response_row: dict[tuple[int, int], int] = {}  # (response id, rubric item id) -> row
    study_unit_row: dict[tuple[int, int], int] = {}
    for position, (su_id, unit_id, response_id, case_id, model_id, _) in enumerate(units):
        for item_id, ability, points in items_of[case_id]:
            row = len(rows)
            row_of[(unit_id, item_id)] = row
            response_row[(response_id, item_id)] = row
            study_unit_row[(su_id, item_id)] = row
            rows.append(
                (
                    case_index[case_id],
                    position,
                    model_index[model_id],
                    item_id,
                    ability,
                    np.nan if points is None else float(points),
                    case_id in hard_cases,
                )
            )
    n = len(rows)

    experts: dict[str, int] = {}
    labelled: list[tuple[int, int, int]] = []
    for unit_id, item_id, pseudonym, hit in (
        rating_labels()
        .filter(submission__unit__in=in_study.values("unit_id"))
        .values_list(
            "submission__unit_id", "rubric_item_id", "submission__expert__pseudonym", "hit"
        )
    ):
        row = row_of.get((unit_id, item_id))
        if row is not None:
            column = experts.setdefault(pseudonym, len(experts))
            labelled.append((row, column, _code(hit)))
    ratings = np.full((n, len(experts)), MISSING, dtype=np.int64)
    for row, column, code in labelled:
        ratings[row, column] = code

    gold = np.full(n, MISSING, dtype=np.int64)
    provenance = np.full(n, "", dtype=object)
    for su_id, item_id, hit, prov in GoldLabel.objects.filter(study_unit__study=study).values_list(
        "study_unit_id", "rubric_item_id", "hit", "provenance"
    ):
        row = study_unit_row.get((su_id, item_id))
        if row is not None:
            gold[row] = _code(hit)
            provenance[row] = prov

    judges = []
    responses = in_study.values("unit__response_id")
    judge_runs = _judge_runs(study)
    for name, runs in judge_runs.items():
        codes = np.full(n, MISSING, dtype=np.int64)
        errors = 0
        for response_id, item_id, state in Verdict.objects.filter(
            run__in=runs, response_id__in=responses
        ).values_list("response_id", "rubric_item_id", "state"):
            row = response_row.get((response_id, item_id))
            if row is None:
                continue
            if state == Verdict.State.ERROR:
                errors += 1
            else:
                codes[row] = HIT if state == Verdict.State.MET else MISS
        judges.append(
            JudgeLabels(name=name, runs=tuple(r.pk for r in runs), codes=codes, errors=errors)
        )

    columns = list(zip(*rows, strict=True)) if rows else [()] * 7
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
            "gate": study.gate_config,
            "closed_at": study.closed_at.isoformat() if study.closed_at else None,
        },
        case_keys=tuple(cases[c] for c in case_ids),
        models=tuple(model_names[m] for m in model_ids),
        experts=tuple(experts),
        case=np.array(columns[0], dtype=np.int64),
        unit=np.array(columns[1], dtype=np.int64),
        model=np.array(columns[2], dtype=np.int64),
        criterion=np.array(columns[3], dtype=np.int64),
        ability=np.array(columns[4], dtype=object),
        points=np.array(columns[5], dtype=float),
        hard=np.array(columns[6], dtype=bool),
        ratings=ratings,
        gold=gold,
        provenance=provenance,
        unit_states=dict(Counter(u[5] for u in units)),
        judges=tuple(judges),
        adjudications=adjudication_decisions(study=study),
        dropped=_dropped(study),
        notes=rater_notes_gather(study=study),
        repeats=judge_repeats_gather(
            judge_runs=_judge_runs(study), response_rows=response_row, n=n
        ),
        raters=rater_quality_gather(study=study, pseudonyms=tuple(experts)),
        rubric=rubric_versions_gather(
            study=study,
            unit_rows=row_of,
            response_rows=response_row,
            judge_runs=judge_runs,
            n=n,
        ),
    )
    data.check()
    return data
