"""Importing an upstream dataset file as a new dataset version."""

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from django.contrib.auth.base_user import AbstractBaseUser
from django.db import connection, reset_queries, transaction

from benchmark.audit_actions import BenchmarkAction
from benchmark.importing import (
    CaseRecord,
    ContentHasher,
    DatasetScan,
    ImportFailure,
    dataset_scan,
    difficulty_from_name,
    iter_cases,
)
from benchmark.models import Case, Dataset, RubricItem
from benchmark.selectors.datasets import (
    dataset_find_by_content,
    dataset_find_twin,
    dataset_next_version,
)
from benchmark.services.audit import audit_record
from benchmark.services.imports.common import (
    CASE_BATCH,
    INSERT_BATCH,
    batches,
    named,
    read_limits,
)


@dataclass(frozen=True)
class DatasetImportResult:
    dataset: Dataset
    created: bool
    scan: DatasetScan


def dataset_import(
    *,
    path: Path,
    name: str | None = None,
    source: str | None = None,
    licence_note: str = "",
    is_demo: bool = False,
    difficulty: str | None = None,
    allow_copy: bool = False,
    actor: AbstractBaseUser | None = None,
) -> DatasetImportResult:
    """Import an upstream HeartBench JSONL dataset as a new version of dataset `name`.

    The file is read twice: a first pass validates every line and hashes the content without
    keeping it, a second inserts cases and rubric items in batches inside one transaction.
    The same content under the same name is a no-op (``created`` is False); changed content
    becomes version N+1. Data-quality warnings are stored on the dataset and returned.

    A line without "difficulty" takes `difficulty`, or else the one the file's name states
    (the released question_hard.jsonl and question_normal.jsonl have none), told in a warning.
    The same content under another name is refused (``ImportFailure``) unless ``allow_copy``:
    two names for one dataset split its runs and studies between them.
    """
    name = name or path.stem
    limits = read_limits()
    taken_from = "as given"
    if difficulty is None and (difficulty := difficulty_from_name(path)) is not None:
        taken_from = f"from the file name {path.name}"
    with named(path):
        scan = dataset_scan(path, difficulty=difficulty, difficulty_source=taken_from, **limits)
        with transaction.atomic():
            existing = dataset_find_by_content(name=name, content_hash=scan.content_hash)
            if existing is not None:
                return DatasetImportResult(existing, created=False, scan=scan)
            twin = dataset_find_twin(name=name, content_hash=scan.content_hash)
            if twin is not None and not allow_copy:
                raise ImportFailure(
                    None,
                    f"already imported as {twin} (the same content): use that name, or "
                    "--allow-copy to keep a second copy under this one",
                )
            dataset = Dataset.objects.create(
                name=name,
                version=dataset_next_version(name=name),
                content_hash=scan.content_hash,
                source=source or path.name,
                licence_note=licence_note,
                is_demo=is_demo,
                case_count=scan.case_count,
                criterion_count=scan.criterion_count,
                warnings=[warning.as_dict() for warning in scan.warnings],
            )
            _insert_cases(dataset=dataset, cases=iter_cases(path, difficulty=difficulty, **limits))
            audit_record(
                actor=actor,
                action=BenchmarkAction.DATASET_IMPORT,
                obj=dataset,
                data={
                    "name": name,
                    "version": dataset.version,
                    "source": dataset.source,
                    "content_hash": scan.content_hash,
                    "cases": scan.case_count,
                    "criteria": scan.criterion_count,
                    "warnings": len(scan.warnings),
                },
            )
    return DatasetImportResult(dataset, created=True, scan=scan)


_RUBRIC_COLUMNS = ("case", "position", "ability", "points", "text", "version")


def _insert_rubric(rows: Iterable[tuple]) -> None:
    """Insert rubric rows with one prepared statement run many times.

    The rubric table takes ~90% of a dataset's rows; building a model instance per row for
    bulk_create made it the bulk of the import time, and these columns need no conversion.
    """
    meta = RubricItem._meta
    quote = connection.ops.quote_name
    columns = ", ".join(quote(meta.get_field(name).column) for name in _RUBRIC_COLUMNS)
    marks = ", ".join(["%s"] * len(_RUBRIC_COLUMNS))
    sql = f"INSERT INTO {quote(meta.db_table)} ({columns}) VALUES ({marks})"
    with connection.cursor() as cursor:
        cursor.executemany(sql, list(rows))


def _insert_cases(*, dataset: Dataset, cases: Iterator[CaseRecord]) -> None:
    hasher = ContentHasher()
    position = 0
    for batch in batches(cases, CASE_BATCH):
        rows = []
        for case in batch:
            hasher.add(case.canonical())
            rows.append(
                Case(
                    dataset=dataset,
                    question_id=case.question_id,
                    position=position,
                    dialogue=case.dialogue,
                    difficulty=case.difficulty,
                    primary_scene=case.primary_scene,
                    secondary_scene=case.secondary_scene,
                )
            )
            position += 1
        # PostgreSQL and SQLite ≥ 3.35 return the new primary keys from a bulk insert.
        created = Case.objects.bulk_create(rows, batch_size=INSERT_BATCH)
        _insert_rubric(
            (row.pk, criterion.position, criterion.ability, criterion.points, criterion.text, 1)
            for row, case in zip(created, batch, strict=True)
            for criterion in case.rubric
        )
        # With DEBUG on, Django keeps every statement it ran; a big import would keep them all.
        reset_queries()
    if hasher.hexdigest() != dataset.content_hash:
        raise ImportFailure(None, "the file changed while it was being imported; nothing written")
