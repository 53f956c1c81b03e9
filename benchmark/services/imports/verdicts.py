"""Importing an upstream scored file as one finished judge run."""

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from django.contrib.auth.base_user import AbstractBaseUser
from django.db import transaction
from django.utils import timezone

from benchmark.audit_actions import BenchmarkAction
from benchmark.importing import (
    ContentHasher,
    ImportFailure,
    VerdictRow,
    fit_detail,
    is_failed_generation,
    iter_verdicts,
)
from benchmark.models import Dataset, Judge, JudgeRun, ModelUnderTest, Response, RubricItem, Verdict
from benchmark.selectors.datasets import dataset_resolve
from benchmark.services.announce import run_ended
from benchmark.services.audit import audit_record
from benchmark.services.imports.common import (
    DEFAULT_JUDGE,
    IMPORT_SOURCE,
    INSERT_BATCH,
    ROW_BATCH,
    answer_conflict,
    batches,
    case_ids_of,
    existing_answers,
    named,
    read_limits,
)


@dataclass
class VerdictsImportResult:
    dataset: Dataset
    model: ModelUnderTest
    judge: Judge
    run: JudgeRun
    created: bool
    stats: dict[str, Any] = field(default_factory=dict)


def _verdicts_scan(path: Path, limits: dict[str, int]) -> tuple[str, int]:
    hasher = ContentHasher()
    rows = 0
    for row in iter_verdicts(path, **limits):
        hasher.add(row.canonical())
        rows += 1
    return hasher.hexdigest(), rows


def verdicts_import(
    *,
    path: Path,
    model_name: str,
    judge_name: str = DEFAULT_JUDGE,
    dataset_name: str | None = None,
    lenient: bool = False,
    actor: AbstractBaseUser | None = None,
) -> VerdictsImportResult:
    """Import an upstream scored file (`question_id`, `score_detail`) as one finished JudgeRun.

    A row without a verdict list (the upstream judge call or parse failed) stores every
    criterion of its case as an error, never as "not met". A list whose length differs from
    the rubric is an error unless ``lenient`` pads with 0 or truncates as upstream does. A
    row may carry the answer it judged (`response`): it creates the model's response when
    there is none and must match it when there is. The same content for the same judge,
    model and dataset is a no-op.
    """
    limits = read_limits()
    with named(path):
        content_hash, row_count = _verdicts_scan(path, limits)
        with transaction.atomic():
            dataset = dataset_resolve(name=dataset_name)
            model, _ = ModelUnderTest.objects.get_or_create(name=model_name)
            judge, _ = Judge.objects.get_or_create(name=judge_name)
            same = JudgeRun.objects.filter(
                judge=judge, model=model, dataset=dataset, content_hash=content_hash
            ).first()
            if same is not None:
                return VerdictsImportResult(dataset, model, judge, same, False, same.import_summary)
            run = JudgeRun.objects.create(
                judge=judge,
                model=model,
                dataset=dataset,
                status=JudgeRun.Status.RUNNING,
                source=IMPORT_SOURCE,
                content_hash=content_hash,
            )
            stats = _VerdictStats(rows=row_count, lenient=lenient)
            for rows in batches(iter_verdicts(path, **limits), ROW_BATCH):
                _verdict_batch(run=run, rows=rows, lenient=lenient, stats=stats)
            run.status = JudgeRun.Status.FINISHED
            run.finished_at = timezone.now()
            run.import_summary = stats.as_dict()
            run.save(update_fields=["status", "finished_at", "import_summary"])
            run_ended(run=run)
            audit_record(
                actor=actor,
                action=BenchmarkAction.VERDICTS_IMPORT,
                obj=run,
                data={"file": path.name, "dataset": str(dataset), **run.import_summary},
            )
    return VerdictsImportResult(dataset, model, judge, run, True, run.import_summary)


@dataclass
class _VerdictStats:
    rows: int
    lenient: bool
    scored_cases: int = 0
    error_cases: int = 0
    unanswered: int = 0
    refitted: int = 0
    responses_created: int = 0
    verdicts: int = 0

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def _verdict_batch(
    *, run: JudgeRun, rows: list[VerdictRow], lenient: bool, stats: _VerdictStats
) -> None:
    case_ids = case_ids_of(dataset=run.dataset, rows=rows)
    criteria: dict[int, list[int]] = {}
    for case_id, item_id in (
        RubricItem.objects.filter(case_id__in=case_ids.values())
        .order_by("case_id", "position")
        .values_list("case_id", "id")
    ):
        criteria.setdefault(case_id, []).append(item_id)
    answers = existing_answers(model=run.model, case_ids=case_ids.values())

    judged: list[tuple[VerdictRow, tuple[bool, ...] | None]] = []
    new_answers: list[Response] = []
    for row in rows:
        case_id = case_ids[row.question_id]
        given = None if is_failed_generation(row.response) else row.response
        known = answers.get(case_id)
        if known is not None:
            if given is not None and given != known.text:
                raise answer_conflict(row, run.model)
        elif given is not None:
            answers[case_id] = Response(
                model=run.model, case_id=case_id, text=given, source=IMPORT_SOURCE
            )
            new_answers.append(answers[case_id])
        elif row.detail is None:
            # Upstream skips a case whose answer failed: nothing was judged, nothing to store.
            stats.unanswered += 1
            continue
        else:
            raise ImportFailure(
                row.line,
                f'model "{run.model.name}" has no answer to "{row.question_id}": import its '
                "answers first, or include the judged text as `response` in this file",
            )
        hits = None
        if row.detail is not None:
            size = len(criteria[case_id])
            hits = fit_detail(row.detail, criteria=size, lenient=lenient, line=row.line)
            stats.refitted += len(row.detail) != size
        judged.append((row, hits))

    Response.objects.bulk_create(new_answers, batch_size=INSERT_BATCH)
    stats.responses_created += len(new_answers)
    verdicts = []
    for row, hits in judged:
        case_id = case_ids[row.question_id]
        if hits is None:
            stats.error_cases += 1
            states = [Verdict.State.ERROR] * len(criteria[case_id])
        else:
            stats.scored_cases += 1
            states = [Verdict.State.MET if hit else Verdict.State.NOT_MET for hit in hits]
        for item_id, state in zip(criteria[case_id], states, strict=True):
            verdicts.append(
                Verdict(
                    run=run,
                    response_id=answers[case_id].pk,
                    rubric_item_id=item_id,
                    state=state,
                    # The upstream judge was shown the text of the imported file: version 1,
                    # whatever the criterion has been edited to since.
                    rubric_version=1,
                    reasoning=row.reasoning,
                    raw_reply=row.raw_reply,
                )
            )
    Verdict.objects.bulk_create(verdicts, batch_size=INSERT_BATCH)
    stats.verdicts += len(verdicts)
