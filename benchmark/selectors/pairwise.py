"""Reads of pairwise sets and pairwise judge runs (``benchmark.models.pairwise``)."""

from collections.abc import Iterable
from typing import NamedTuple

from django.db.models import Count, Max, Q

from benchmark.llm.pairwise_reply import ORDERS, STORED, SWAPPED, pair_outcome
from benchmark.models import (
    Case,
    Dataset,
    JudgeRun,
    ModelUnderTest,
    PairwisePair,
    PairwiseRun,
    PairwiseSet,
    PairwiseVerdict,
    Response,
)
from benchmark.selectors.leaderboard import judge_run_scores
from benchmark.selectors.runs import cases_chosen, runs_latest


class PairwiseSetNotFound(LookupError):
    """No pairwise set has the name asked for."""


def pairwise_set_get(*, name: str) -> PairwiseSet:
    found = PairwiseSet.objects.select_related("dataset").filter(name=name).first()
    if found is None:
        raise PairwiseSetNotFound(f"no pairwise set named {name!r}")
    return found


def pairwise_sets_listed() -> list[PairwiseSet]:
    """Every pairwise set by name, with its dataset and its number of pairs (``pairs_count``)."""
    return list(
        PairwiseSet.objects.select_related("dataset")
        .annotate(pairs_count=Count("pairs"))
        .order_by("name")
    )


def pairwise_set_exists(*, name: str) -> bool:
    return PairwiseSet.objects.filter(name=name).exists()


def responses_of_models(*, dataset: Dataset, models: Iterable[ModelUnderTest]) -> list[Response]:
    """The models' responses to the dataset's cases, with their case and model, in case order."""
    return list(
        Response.objects.filter(case__dataset=dataset, model__in=list(models))
        .select_related("case", "model")
        .order_by("case__position", "model__name")
    )


def case_scores_of_judge(
    *, dataset: Dataset, models: Iterable[ModelUnderTest], judge: str
) -> dict[str, dict[int, float | None]]:
    """Model name → case id → rubric case score (paper scoring; None: unscored) from the run of
    ``judge`` the leaderboard reads for that model (``runs_latest``); a model without a run of
    that judge on the dataset is left out."""
    runs = JudgeRun.objects.filter(
        dataset=dataset, judge__name=judge, model__in=list(models)
    ).select_related("judge", "model", "dataset")
    scores = {}
    for run in runs_latest(runs):
        cases = judge_run_scores(run=run).cases
        scores[run.model.name] = {
            case_id: (score.score if score is not None else None)
            for case_id, score in cases.items()
        }
    return scores


def pairwise_pairs(*, pair_set: PairwiseSet) -> list[PairwisePair]:
    return list(
        pair_set.pairs.select_related("case", "response_a__model", "response_b__model").order_by(
            "case__position", "response_a__model__name", "response_b__model__name"
        )
    )


def pairs_of_cases(*, pair_set: PairwiseSet, cases: Iterable[Case]) -> list[PairwisePair]:
    """The set's pairs on these cases, with their case, in order."""
    return list(
        pair_set.pairs.filter(case__in=list(cases))
        .select_related("case")
        .order_by("case__position", "pk")
    )


def pairwise_run_choices(
    *, run: PairwiseRun, pair_ids: Iterable[int]
) -> list[tuple[int, str, str]]:
    """The run's usable verdicts on these pairs: (pair id, order shown, choice in the pair's
    stored order), errors left out."""
    return list(
        PairwiseVerdict.objects.filter(run=run, pair_id__in=list(pair_ids))
        .exclude(choice=PairwiseVerdict.Choice.ERROR)
        .order_by("pk")
        .values_list("pair_id", "order", "choice")
    )


def pairwise_run_get(*, run_id: int) -> PairwiseRun:
    return PairwiseRun.objects.select_related("judge", "pair_set__dataset").get(pk=run_id)


def pairwise_run_newest(*, judge_id: int, pair_set_id: int, **options) -> PairwiseRun | None:
    """The newest run of this judge over this set with these options (``RunOptions`` fields)."""
    return (
        PairwiseRun.objects.filter(judge_id=judge_id, pair_set_id=pair_set_id, **options)
        .order_by("-created_at", "-id")
        .first()
    )


def pairwise_sets_judged(*, dataset: Dataset) -> list[PairwiseSet]:
    """The dataset's pairwise sets some judge has a run over, by name."""
    judged = PairwiseSet.objects.filter(dataset=dataset, runs__isnull=False).distinct()
    return list(judged.order_by("name"))


def pairwise_runs_newest(*, pair_set: PairwiseSet) -> dict[str, PairwiseRun]:
    """Each judge's newest run over the set (judge name → run, by name), with how many
    verdicts it holds (``verdicts_stored``) and its last verdict's id (``verdict_last``):
    together they change with every verdict stored."""
    runs = (
        PairwiseRun.objects.filter(pair_set=pair_set)
        .select_related("judge")
        .annotate(verdicts_stored=Count("verdicts"), verdict_last=Max("verdicts__id"))
        .order_by("judge__name", "-created_at", "-id")
    )
    newest: dict[str, PairwiseRun] = {}
    for run in runs:
        newest.setdefault(run.judge.name, run)
    return newest


def pairwise_usable_pairs(*, runs: Iterable[PairwiseRun]) -> dict[int, int]:
    """Run id → its pairs with a verdict in both orders and no error, as
    ``pairwise_run_outcomes`` counts them, from the verdicts alone (no pair or text read)."""
    orders: dict[tuple[int, int], list[str]] = {}
    rows = PairwiseVerdict.objects.filter(run__in=list(runs)).values_list(
        "run_id", "pair_id", "choice"
    )
    for run_id, pair_id, choice in rows:
        orders.setdefault((run_id, pair_id), []).append(choice)
    usable: dict[int, int] = {}
    for (run_id, _), choices in orders.items():
        if len(choices) == 2 and PairwiseVerdict.Choice.ERROR not in choices:
            usable[run_id] = usable.get(run_id, 0) + 1
    return usable


def pairwise_run_pairs(*, run: PairwiseRun):
    """The run's pairs: the set's, as far as the run's ``--sample-id`` / ``--limit`` go."""
    cases = cases_chosen(run.pair_set.dataset.cases.all(), run=run)
    return run.pair_set.pairs.filter(case__in=cases)


class TodoPair(NamedTuple):
    pair_id: int
    order: str
    dialogue: list
    response_a: str
    response_b: str


def pairwise_run_todo(*, run: PairwiseRun) -> list[TodoPair]:
    """Each (pair, order) of the run without a verdict yet, in case order, stored order first."""
    judged = set(PairwiseVerdict.objects.filter(run=run).values_list("pair_id", "order"))
    rows = (
        pairwise_run_pairs(run=run)
        .order_by("case__position", "pk")
        .values_list("pk", "case__dialogue", "response_a__text", "response_b__text")
    )
    return [
        TodoPair(pk, order, dialogue, text_a, text_b)
        for pk, dialogue, text_a, text_b in rows
        for order in ORDERS
        if (pk, order) not in judged
    ]


def pairwise_run_counts(*, run: PairwiseRun) -> dict[str, int]:
    """Judge calls in scope (two per pair), stored, and stored as error."""
    total = 2 * pairwise_run_pairs(run=run).count()
    counted = PairwiseVerdict.objects.filter(run=run).aggregate(
        done=Count("pk"), errors=Count("pk", filter=Q(choice=PairwiseVerdict.Choice.ERROR))
    )
    return {"total": total, "done": counted["done"], "errors": counted["errors"]}


def pairwise_error_reasons(*, run: PairwiseRun) -> list[str]:
    return list(
        PairwiseVerdict.objects.filter(run=run, choice=PairwiseVerdict.Choice.ERROR).values_list(
            "reasoning", flat=True
        )
    )


class PairOutcome(NamedTuple):
    pair_id: int
    question_id: str
    model_a: str
    model_b: str
    stored: str  # the canonical choice with a shown first: a, b, tie or error
    swapped: str  # with b shown first
    outcome: str  # a, b or tie (a position-inconsistent pair counts as a tie); "" if unusable
    consistent: bool | None  # None when an order is missing or an error


def pairwise_run_outcomes(*, run: PairwiseRun) -> list[PairOutcome]:
    """Every pair of the run with its two choices and its outcome (``pair_outcome``)."""
    choices: dict[int, dict[str, str]] = {}
    for pair_id, order, choice in PairwiseVerdict.objects.filter(run=run).values_list(
        "pair_id", "order", "choice"
    ):
        choices.setdefault(pair_id, {})[order] = choice
    rows = []
    for pair in (
        pairwise_run_pairs(run=run)
        .select_related("case", "response_a__model", "response_b__model")
        .order_by("case__position", "pk")
    ):
        got = choices.get(pair.pk, {})
        stored, swapped = got.get(STORED, ""), got.get(SWAPPED, "")
        usable = stored and swapped and PairwiseVerdict.Choice.ERROR not in (stored, swapped)
        outcome, consistent = pair_outcome(stored=stored, swapped=swapped) if usable else ("", None)
        rows.append(
            PairOutcome(
                pair.pk,
                pair.case.question_id,
                pair.response_a.model.name,
                pair.response_b.model.name,
                stored,
                swapped,
                outcome,
                consistent,
            )
        )
    return rows
