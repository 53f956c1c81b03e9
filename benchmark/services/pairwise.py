"""Draw a named pairwise set from answers already in the platform.

Per case, every pair of the chosen models that both answered it; optionally only the pairs
whose rubric case scores (from one judge's runs) differ by less than a gap — the informative
ones — and optionally a stratified sample of them with a seed (``benchmark.sampling``, the
rule studies sample cases by; strata: the case's difficulty × primary scene, the studies'
default). Each pair is stored in canonical order: ``response_a`` is the response of the model
whose name sorts first. Nothing is written unless the whole draw is valid.
"""

import secrets
from dataclasses import dataclass
from itertools import combinations

from django.db import transaction

from benchmark.models import Dataset, ModelUnderTest, PairwisePair, PairwiseSet, Response
from benchmark.sampling import sample_stratified, stratum_label
from benchmark.selectors import pairwise as selectors

# The case fields a sample is stratified by: the studies' default strata.
PAIR_STRATA = ("difficulty", "primary_scene")


class PairwiseDrawError(ValueError):
    """The draw as asked for cannot be made; nothing was written."""


@dataclass(frozen=True)
class Candidate:
    key: str  # "question id|model a|model b": unique, stable across databases
    stratum: str
    response_a: Response
    response_b: Response


def pairwise_set_draw(
    *,
    name: str,
    dataset: Dataset,
    models: list[ModelUnderTest],
    sample: int | None = None,
    seed: int | None = None,
    max_score_gap: float | None = None,
    score_judge: str | None = None,
) -> PairwiseSet:
    """Draw and store the set ``name``; ``PairwiseDrawError`` (nothing written) when the name
    is taken, fewer than two models are given, a model has no answer in ``dataset``, the gap
    lacks its judge (or the judge a run for a model), or no pair is left to draw."""
    _check(name=name, models=models, sample=sample, max_score_gap=max_score_gap, judge=score_judge)
    models = sorted(set(models), key=lambda m: m.name)
    responses = selectors.responses_of_models(dataset=dataset, models=models)
    answered = {r.model_id for r in responses}
    silent = [m.name for m in models if m.pk not in answered]
    if silent:
        raise PairwiseDrawError(
            f"no answers in dataset {dataset.name} v{dataset.version} from: {', '.join(silent)}"
        )
    candidates = _candidates(responses)
    summary: dict = {"candidates": len(candidates)}
    if max_score_gap is not None:
        candidates = _within_gap(
            candidates, dataset=dataset, models=models, gap=max_score_gap, judge=score_judge
        )
        summary["within_gap"] = len(candidates)
    if not candidates:
        raise PairwiseDrawError("no pair is left to draw")
    if sample is not None:
        seed = secrets.randbelow(2**31) if seed is None else seed
        candidates, summary["strata"] = _sampled(candidates, sample=sample, seed=seed)
    with transaction.atomic():
        pair_set = PairwiseSet.objects.create(
            name=name,
            dataset=dataset,
            sample=sample,
            seed=seed if sample is not None else None,
            max_score_gap=max_score_gap,
            score_judge=score_judge or "",
            draw_summary={**summary, "pairs": len(candidates)},
        )
        pair_set.models_under_test.set(models)
        PairwisePair.objects.bulk_create(
            PairwisePair(
                pair_set=pair_set,
                case_id=c.response_a.case_id,
                response_a=c.response_a,
                response_b=c.response_b,
            )
            for c in candidates
        )
    return pair_set


def _check(
    *,
    name: str,
    models: list[ModelUnderTest],
    sample: int | None,
    max_score_gap: float | None,
    judge: str | None,
) -> None:
    if not name.strip():
        raise PairwiseDrawError("a pairwise set needs a name")
    if selectors.pairwise_set_exists(name=name):
        raise PairwiseDrawError(f"a pairwise set named {name!r} exists already")
    if len(set(models)) < 2:
        raise PairwiseDrawError("a pair needs two models: give at least two different models")
    if sample is not None and sample < 1:
        raise PairwiseDrawError(f"--sample must be at least 1, got {sample}")
    if (max_score_gap is None) != (judge is None):
        raise PairwiseDrawError("--max-score-gap and --score-judge go together")
    if max_score_gap is not None and max_score_gap <= 0:
        raise PairwiseDrawError(f"--max-score-gap must be above 0, got {max_score_gap}")


def _candidates(responses: list[Response]) -> list[Candidate]:
    """Every pair of different models' responses per case, in canonical (model name) order."""
    by_case: dict[int, list[Response]] = {}
    for response in responses:
        by_case.setdefault(response.case_id, []).append(response)
    candidates = []
    for answers in by_case.values():
        answers.sort(key=lambda r: r.model.name)
        for first, second in combinations(answers, 2):
            case = first.case
            candidates.append(
                Candidate(
                    key=f"{case.question_id}|{first.model.name}|{second.model.name}",
                    stratum=stratum_label([getattr(case, f) for f in PAIR_STRATA]),
                    response_a=first,
                    response_b=second,
                )
            )
    return candidates


def _within_gap(
    candidates: list[Candidate],
    *,
    dataset: Dataset,
    models: list[ModelUnderTest],
    gap: float,
    judge: str,
) -> list[Candidate]:
    """The pairs whose two case scores are both known and differ by less than ``gap`` points."""
    scores = selectors.case_scores_of_judge(dataset=dataset, models=models, judge=judge)
    unjudged = [m.name for m in models if m.name not in scores]
    if unjudged:
        raise PairwiseDrawError(
            f"judge {judge!r} has no run on dataset {dataset.name} v{dataset.version} for: "
            + ", ".join(unjudged)
        )
    kept = []
    for c in candidates:
        a = scores[c.response_a.model.name].get(c.response_a.case_id)
        b = scores[c.response_b.model.name].get(c.response_b.case_id)
        if a is not None and b is not None and abs(a - b) < gap:
            kept.append(c)
    return kept


def _sampled(
    candidates: list[Candidate], *, sample: int, seed: int
) -> tuple[list[Candidate], dict[str, dict[str, int]]]:
    """``sample`` of the candidates, stratified (all of them when there are no more)."""
    by_key = {c.key: c for c in candidates}
    drawn = sample_stratified(
        items=[(c.key, c.stratum) for c in candidates],
        fraction=min(1.0, sample / len(candidates)),
        seed=seed,
    )
    strata = {s: {"sampled": k, "pairs": n} for s, (k, n) in drawn.strata.items()}
    return [by_key[key] for key in drawn.keys], strata
