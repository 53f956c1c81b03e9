"""Reads for judge and generation runs: what is left to do, progress, the request cache."""

from collections import Counter
from collections.abc import Iterable
from typing import NamedTuple

from django.core.cache import cache
from django.db.models import Case as CaseWhen
from django.db.models import Count, IntegerField, OuterRef, Q, QuerySet, Subquery, Value, When
from django.utils.translation import gettext

from benchmark.llm.accounting import TALLY_FIELDS
from benchmark.llm.engine import reason_kind
from benchmark.models import (
    Case,
    Dataset,
    GenerationRun,
    JudgeRun,
    LLMCacheEntry,
    LLMRun,
    ModelUnderTest,
    PairwiseRun,
    PairwiseVerdict,
    Response,
    RubricItem,
    Verdict,
)
from benchmark.selectors.datasets import DatasetNotFound, dataset_resolve

CACHE_CHUNK = 500  # keys per IN (...) query, well under SQLite's variable limit


def dataset_for_model(*, model: ModelUnderTest, name: str | None = None) -> Dataset:
    """The dataset ``NAME[:vN]``, else the only one ``model`` has answered.

    Raises ``DatasetNotFound`` with a message fit for the user.
    """
    if name:
        return dataset_resolve(name=name)
    ids = list(
        Response.objects.filter(model=model).values_list("case__dataset", flat=True).distinct()
    )
    if len(ids) == 1:
        return Dataset.objects.get(pk=ids[0])
    if not ids:
        raise DatasetNotFound(
            f"model {model.name!r} has no responses: generate or import them first"
        )
    raise DatasetNotFound(
        f"model {model.name!r} answered {len(ids)} datasets: pick one with --dataset NAME[:vN]"
    )


def mode_cases(*, dataset: Dataset, mode: str = "all") -> QuerySet[Case]:
    """The dataset's cases of a mode (all, normal, hard), in order."""
    cases = Case.objects.filter(dataset=dataset)
    if mode in ("normal", "hard"):
        cases = cases.filter(difficulty=mode)
    return cases.order_by("position")


def dataset_cases(*, dataset: Dataset, mode: str = "all") -> list[Case]:
    return list(mode_cases(dataset=dataset, mode=mode))


def judge_run_newest(
    *, judge_id: int, model_id: int, dataset_id: int, **options
) -> JudgeRun | None:
    """The newest engine run of this judge, model and dataset with these options (granularity
    and the fields of ``RunOptions``): the one a command continues, or finds finished."""
    return (
        JudgeRun.objects.filter(
            judge_id=judge_id, model_id=model_id, dataset_id=dataset_id, source="engine", **options
        )
        .order_by("-created_at", "-id")
        .first()
    )


def judge_run_successors(*, run_ids: Iterable[int]) -> dict[int, int]:
    """Run id → the first newer run of the same judge, model and dataset (a retry of its
    errors, a forced run), for the runs among these that a newer one replaced. A repeat
    (``judge --repeats``) replaces nothing."""
    newer = (
        JudgeRun.objects.filter(
            judge_id=OuterRef("judge_id"),
            model_id=OuterRef("model_id"),
            dataset_id=OuterRef("dataset_id"),
            pk__gt=OuterRef("pk"),
            repeat_of__isnull=True,
        )
        .order_by("pk")
        .values("pk")[:1]
    )
    return dict(
        JudgeRun.objects.filter(pk__in=list(run_ids))
        .annotate(successor=Subquery(newer))
        .filter(successor__isnull=False)
        .values_list("pk", "successor")
    )


def question_ids_unknown(*, dataset: Dataset, ids: Iterable[str]) -> list[str]:
    """Those of ``ids`` that name no case of ``dataset``, sorted."""
    ids = set(ids)
    known = set(
        Case.objects.filter(dataset=dataset, question_id__in=ids).values_list(
            "question_id", flat=True
        )
    )
    return sorted(ids - known)


def cases_chosen(cases: QuerySet[Case], *, run: LLMRun) -> QuerySet[Case]:
    """Of ``cases``, those the run is limited to: its question ids, then its first ``limit``."""
    if run.sample_ids:
        cases = cases.filter(question_id__in=run.sample_ids.split(","))
    cases = cases.order_by("position")
    return cases[: run.limit] if run.limit is not None else cases


def judge_run_cases(*, run: JudgeRun) -> QuerySet[Case]:
    """The cases a judge run judges: those its model answered, as far as the run is limited."""
    answered = Case.objects.filter(dataset=run.dataset, responses__model=run.model)
    return cases_chosen(answered, run=run)


class TodoCriterion(NamedTuple):
    id: int
    ability: str
    points: int | None
    text: str
    version: int


class TodoResponse(NamedTuple):
    id: int
    text: str
    dialogue: list
    criteria: list[TodoCriterion]


def judge_run_todo(*, run: JudgeRun, response_ids: list[int] | None = None) -> list[TodoResponse]:
    """Responses of the run's model in its dataset (or just ``response_ids`` of them), each with
    its criteria not yet judged, in case order and each case's criteria in rubric order.

    Plain rows, not model instances: a whole dataset is a few thousand criteria, read once per
    run before the first request goes out.
    """
    verdicts = Verdict.objects.filter(run=run)
    responses = Response.objects.filter(model=run.model, case__in=judge_run_cases(run=run))
    if response_ids is not None:
        verdicts = verdicts.filter(response_id__in=response_ids)
        responses = responses.filter(pk__in=response_ids)
    judged = set(verdicts.values_list("rubric_item_id", flat=True))
    rows = list(
        responses.order_by("case__position").values_list("pk", "text", "case_id", "case__dialogue")
    )
    criteria: dict[int, list[TodoCriterion]] = {}
    for case_id, *fields in (
        RubricItem.objects.filter(case__in=responses.values("case_id"))
        .order_by("case_id", "position")
        .values_list("case_id", "pk", "ability", "points", "text", "version")
    ):
        if fields[0] not in judged:
            criteria.setdefault(case_id, []).append(TodoCriterion(*fields))
    return [
        TodoResponse(pk, text, dialogue, criteria[case_id])
        for pk, text, case_id, dialogue in rows
        if case_id in criteria
    ]


def answered_pairs() -> list[tuple[int, int]]:
    """(model id, dataset id) for every model that has responses in a dataset."""
    return list(Response.objects.values_list("model_id", "case__dataset_id").distinct().order_by())


def runs_latest(runs: QuerySet[JudgeRun]) -> list[JudgeRun]:
    """Per judge and model among ``runs``, the run a leaderboard or a report reads.

    The newest finished run: a run still going (a retry of errors, a forced re-run) or one
    that stopped halfway does not hide the results it would replace, nor does a run of some
    cases only (``--limit``, ``--sample-id``) hide one of every case. A model without a
    finished run counts its newest one, with the coverage it has so far. A repeat
    (``judge --repeats``) is never the one read: its run 0 is.
    """
    finished_first = CaseWhen(
        When(status=JudgeRun.Status.FINISHED, then=Value(0)),
        default=Value(1),
        output_field=IntegerField(),
    )
    every_case_first = CaseWhen(
        When(sample_ids="", limit__isnull=True, then=Value(0)),
        default=Value(1),
        output_field=IntegerField(),
    )
    latest: dict[tuple[int, int], JudgeRun] = {}
    ordered = runs.filter(repeat_of__isnull=True).order_by(
        finished_first, every_case_first, "-created_at", "-id"
    )
    for run in ordered:
        latest.setdefault((run.judge_id, run.model_id), run)
    return list(latest.values())


def verdict_counts(*, run_ids: Iterable[int]) -> dict[int, tuple[int, int]]:
    """Run id → (verdicts stored, of which errors), in one query; runs without any are absent."""
    rows = (
        Verdict.objects.filter(run_id__in=list(run_ids))
        .values("run_id")
        .annotate(done=Count("id"), errors=Count("id", filter=Q(state=Verdict.State.ERROR)))
        .order_by()
    )
    return {r["run_id"]: (r["done"], r["errors"]) for r in rows}


ENDED_COUNTS_SECONDS = 24 * 3600  # only bounds the cache's memory: a kept count never goes stale


def verdict_counts_of(*, runs: Iterable[JudgeRun]) -> dict[int, tuple[int, int]]:
    """``verdict_counts`` of these runs, a finished or failed run's kept in the cache.

    Verdicts are never edited. A finished run holds a verdict for every criterion in scope and
    is not queued again; a failed one never started. Only running it again (which marks it
    going first and checkpoints new counts) could add any, so their counts are kept under the
    run's row as it ended (id, creation time, status and checkpointed counts). A run going or
    stopped (which may be resumed, or have chunks still writing) is counted every time.
    """
    runs = list(runs)
    keys = {
        run.pk: f"verdict-counts:{run.pk}:{run.created_at.timestamp()}:{run.status}:"
        f"{run.done}:{run.errors}:{run.calls}"
        for run in runs
        if run.status in (LLMRun.Status.FINISHED, LLMRun.Status.FAILED)
    }
    kept = cache.get_many(list(keys.values()))
    found = {pk: tuple(kept[key]) for pk, key in keys.items() if key in kept}
    counted = verdict_counts(run_ids=[run.pk for run in runs if run.pk not in found])
    ended = {key: counted.get(pk, (0, 0)) for pk, key in keys.items() if pk not in found}
    if ended:
        cache.set_many(ended, ENDED_COUNTS_SECONDS)
    return {**found, **counted}


def judge_run_counts(*, run: JudgeRun) -> dict[str, int]:
    """Criteria in scope, judged, and judged as error."""
    total = RubricItem.objects.filter(case__in=judge_run_cases(run=run)).count()
    done, errors = verdict_counts(run_ids=[run.pk]).get(run.pk, (0, 0))
    return {"total": total, "done": done, "errors": errors}


def judge_run_get(*, run_id: int) -> JudgeRun:
    return JudgeRun.objects.select_related("judge", "model", "dataset").get(pk=run_id)


def generation_run_get(*, run_id: int) -> GenerationRun:
    return GenerationRun.objects.select_related("model", "dataset").get(pk=run_id)


def generation_run_cases(*, run: GenerationRun) -> list[Case]:
    """The cases a generation run asks for: its mode's, as far as the run is limited."""
    return list(cases_chosen(mode_cases(dataset=run.dataset, mode=run.mode), run=run))


def generation_todo(*, run: GenerationRun) -> list[Case]:
    answered = set(
        Response.objects.filter(model=run.model, case__dataset=run.dataset).values_list(
            "case_id", flat=True
        )
    )
    return [case for case in generation_run_cases(run=run) if case.pk not in answered]


def generation_run_newest(
    *, model_id: int, dataset_id: int, mode: str, **options
) -> GenerationRun | None:
    """The newest generation run of this model, dataset and mode with these options
    (``RunOptions`` fields)."""
    return (
        GenerationRun.objects.filter(model_id=model_id, dataset_id=dataset_id, mode=mode, **options)
        .order_by("-created_at", "-id")
        .first()
    )


def llm_cache_lookup(*, keys: Iterable[str]) -> dict[str, LLMCacheEntry]:
    """The stored replies among ``keys``, by key."""
    keys = list(keys)
    found: dict[str, LLMCacheEntry] = {}
    for start in range(0, len(keys), CACHE_CHUNK):
        chunk = keys[start : start + CACHE_CHUNK]
        found.update((e.key, e) for e in LLMCacheEntry.objects.filter(key__in=chunk))
    return found


def judge_run_record(*, run: JudgeRun) -> dict:
    """What the run recorded, JSON-ready: an import's summary, or an engine run's options,
    progress and spending."""
    if run.source != "engine":
        return dict(run.import_summary)
    return {
        "granularity": run.granularity,
        **{name: getattr(run, name) for name in LLMRun.OPTION_FIELDS},
        "template_version": run.template_version,
        "total": run.total,
        "done": run.done,
        "errors": run.errors,
        **{name: getattr(run, name) for name in TALLY_FIELDS},
        "stop_reason": run.stop_reason,
        "retry_of": run.retry_of_id,
        "repeat_of": run.repeat_of_id,
        "repeat_index": run.repeat_index,
    }


def run_progress_text(*, run: LLMRun) -> str:
    """A one-line progress summary of a judge or generation run, for the admin."""
    if run.waiting_for_broker:
        return gettext("waiting for the broker (queued again when it is back)")
    if run.error:
        return gettext("failed: %(error)s") % {"error": run.error}
    total, done = run.total, run.done
    if not total:
        return "-"
    text = gettext(
        "%(done)s/%(total)s (%(percent)s), errors %(errors)s, calls %(calls)s, $%(cost)s"
    ) % {
        "done": done,
        "total": total,
        "percent": f"{100 * done / total:.0f}%",
        "errors": run.errors,
        "calls": run.calls,
        "cost": f"{run.cost:.4f}",
    }
    held = sorted(getattr(run, "chunks_held", {}).values(), key=lambda c: c["since"])
    if held and run.status != LLMRun.Status.FINISHED:
        text += "; " + gettext("chunks being judged: %(chunks)s") % {
            "chunks": ", ".join(
                gettext("%(responses)s responses with %(worker)s since %(since)s") % chunk
                for chunk in held
            )
        }
    return text


def run_error_kinds(*, run: LLMRun) -> list[tuple[str, int]]:
    """A run's errors counted by kind of reason (``reason_kind``), most first: its error
    verdicts (a judge run, one per criterion; a pairwise run, one per pair and order) or its
    listed failures (other runs)."""
    if isinstance(run, JudgeRun):
        reasons = Verdict.objects.filter(run=run, state=Verdict.State.ERROR).values_list(
            "reasoning", flat=True
        )
    elif isinstance(run, PairwiseRun):
        reasons = PairwiseVerdict.objects.filter(
            run=run, choice=PairwiseVerdict.Choice.ERROR
        ).values_list("reasoning", flat=True)
    else:
        reasons = [failure["reason"] for failure in getattr(run, "failures", [])]
    return Counter(reason_kind(reason) for reason in reasons).most_common()


def judge_repeat_runs(*, run: JudgeRun) -> list[JudgeRun]:
    """``run`` (a run 0) and its repeats (``judge --repeats``), by repeat index."""
    return [run, *JudgeRun.objects.filter(repeat_of=run).order_by("repeat_index", "pk")]


def run_verdict_states(*, run_ids: Iterable[int]) -> dict[int, dict[tuple[int, int], tuple]]:
    """Run id → (response id, rubric item id) → (state, criterion version) of its verdicts."""
    found: dict[int, dict[tuple[int, int], tuple]] = {pk: {} for pk in run_ids}
    for run_id, response_id, item_id, state, version in Verdict.objects.filter(
        run_id__in=list(found)
    ).values_list("run_id", "response_id", "rubric_item_id", "state", "rubric_version"):
        found[run_id][(response_id, item_id)] = (state, version)
    return found
