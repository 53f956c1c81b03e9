"""Importing an upstream answer file as one model's responses."""

from dataclasses import dataclass
from pathlib import Path

from django.contrib.auth.base_user import AbstractBaseUser
from django.db import transaction

from benchmark.audit_actions import BenchmarkAction
from benchmark.importing import AnswerRow, iter_answers
from benchmark.models import Dataset, ModelUnderTest, Response
from benchmark.selectors.datasets import dataset_resolve
from benchmark.services.audit import audit_record
from benchmark.services.imports.common import (
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
class AnswersImportResult:
    dataset: Dataset
    model: ModelUnderTest
    created: int = 0
    unchanged: int = 0
    # Rows whose generation failed upstream (null, or text starting with "Error").
    missing: int = 0

    @property
    def rows(self) -> int:
        return self.created + self.unchanged + self.missing


def answers_import(
    *,
    path: Path,
    model_name: str,
    dataset_name: str | None = None,
    actor: AbstractBaseUser | None = None,
) -> AnswersImportResult:
    """Import an upstream answer file (`question_id`, `response`) as one model's responses.

    The model is created if needed. Answers whose generation failed upstream are counted as
    missing, not imported. Re-importing the same answers changes nothing; a different answer
    for a case the model already answered is an error, never a silent overwrite.
    """
    limits = read_limits()
    with named(path), transaction.atomic():
        dataset = dataset_resolve(name=dataset_name)
        model, model_created = ModelUnderTest.objects.get_or_create(name=model_name)
        result = AnswersImportResult(dataset=dataset, model=model)
        for rows in batches(iter_answers(path, **limits), ROW_BATCH):
            _answer_batch(rows=rows, result=result)
        if result.created or model_created:
            audit_record(
                actor=actor,
                action=BenchmarkAction.ANSWERS_IMPORT,
                obj=model,
                data={
                    "dataset": str(dataset),
                    "file": path.name,
                    "created": result.created,
                    "unchanged": result.unchanged,
                    "missing": result.missing,
                },
            )
    return result


def _answer_batch(*, rows: list[AnswerRow], result: AnswersImportResult) -> None:
    case_ids = case_ids_of(dataset=result.dataset, rows=rows)
    existing = existing_answers(model=result.model, case_ids=case_ids.values())
    new = []
    for row in rows:
        if row.response is None:
            result.missing += 1
            continue
        known = existing.get(case_ids[row.question_id])
        if known is None:
            new.append(
                Response(
                    model=result.model,
                    case_id=case_ids[row.question_id],
                    text=row.response,
                    source=IMPORT_SOURCE,
                )
            )
        elif known.text == row.response:
            result.unchanged += 1
        else:
            raise answer_conflict(row, result.model)
    Response.objects.bulk_create(new, batch_size=INSERT_BATCH)
    result.created += len(new)
