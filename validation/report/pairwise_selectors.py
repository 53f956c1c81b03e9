"""What a pairwise study's report reads: its pairs with their models and lengths, the
experts' choices and the gold, every judge's newest pairwise run over the set, and the rubric
case scores the preference is checked against."""

from dataclasses import dataclass

from annotation.selectors import pair_answers
from benchmark.selectors.pairwise import (
    case_scores_of_judge,
    pairwise_run_choices,
    pairwise_runs_newest,
)
from benchmark.selectors.run_lists import judge_runs_for
from validation.models import PairwiseGold, Study, StudyUnit


@dataclass(frozen=True)
class Pair:
    case: str
    model_a: str
    model_b: str
    length_a: int  # characters of the pair's stored response a
    length_b: int


@dataclass(frozen=True)
class JudgeVerdicts:
    judge: str
    run: int
    status: str
    verdicts: list[tuple[int, str, str]]  # (pair id, order shown, choice in stored order)


@dataclass(frozen=True)
class PairwiseStudyInputs:
    study: dict
    pairs: dict[int, Pair]  # pair id → the pair, for the study's pairs
    choices: list[tuple[int, str, str]]  # (pair id, rater pseudonym, winner in stored order)
    gold: dict[int, tuple[str, str]]  # pair id → (winner in stored order, provenance)
    unit_states: dict[str, int]
    judges: list[JudgeVerdicts]
    rubric_judge: str | None  # whose rubric case scores the preference is checked against
    case_scores: dict[tuple[str, str], float | None]  # (case, model) → rubric case score


def pairwise_study_inputs(*, study: Study) -> PairwiseStudyInputs:
    units = StudyUnit.objects.filter(study=study)
    rows = list(
        units.values_list(
            "unit__pair_id",
            "case_id",
            "case__question_id",
            "unit__pair__response_a__model__name",
            "unit__pair__response_b__model__name",
            "unit__pair__response_a__text",
            "unit__pair__response_b__text",
        )
    )
    pairs = {row[0]: Pair(row[2], row[3], row[4], len(row[5]), len(row[6])) for row in rows}
    question_ids = {row[1]: row[2] for row in rows}
    choices = [
        (a.pair_id, a.pseudonym, a.winner) for a in pair_answers(pool=study.pool) if a.is_rating
    ]
    gold = {
        pair: (winner, provenance)
        for pair, winner, provenance in PairwiseGold.objects.filter(
            study_unit__study=study
        ).values_list("study_unit__unit__pair_id", "winner", "provenance")
    }
    states: dict[str, int] = {}
    for state in units.values_list("state", flat=True):
        states[state] = states.get(state, 0) + 1
    judges = [
        JudgeVerdicts(
            judge=name,
            run=run.pk,
            status=run.status,
            verdicts=pairwise_run_choices(run=run, pair_ids=pairs),
        )
        for name, run in pairwise_runs_newest(pair_set=study.pair_set).items()
    ]
    models = study.pair_set.models_under_test.all()
    rubric_judge = study.pair_set.score_judge or (
        judge_runs_for(dataset=study.dataset, models=models)
        .order_by("judge__name")
        .values_list("judge__name", flat=True)
        .first()
    )
    scores = {}
    if rubric_judge:
        found = case_scores_of_judge(dataset=study.dataset, models=models, judge=rubric_judge)
        scores = {
            (question_ids[case], model): score
            for model, by_case in found.items()
            for case, score in by_case.items()
            if case in question_ids
        }
    return PairwiseStudyInputs(
        study={
            "name": study.name,
            "question_type": "pairwise",
            "pairwise_set": study.pair_set.name,
            "dataset": f"{study.dataset.name} v{study.dataset.version}",
            "demo": study.dataset.is_demo,
            "status": study.pool.status,
            "seed": study.seed,
            "fraction": study.fraction,
            "planned_cases": study.planned_cases,
            "closed_at": study.closed_at.isoformat() if study.closed_at else None,
        },
        pairs=pairs,
        choices=choices,
        gold=gold,
        unit_states=states,
        judges=judges,
        rubric_judge=rubric_judge,
        case_scores=scores,
    )
