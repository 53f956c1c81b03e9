"""Reads of rubric criteria and their version history."""

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from django.db.models import QuerySet

from benchmark.models import RubricItem, RubricItemVersion
from benchmark.rubric_diff import RubricDiff, rubric_diff
from benchmark.selectors.datasets import DatasetNotFound, dataset_resolve


class RubricItemNotFound(LookupError):
    """No criterion matches the dataset, case and position asked for."""


def dataset_spec_normalise(spec: str) -> str:
    """`NAME@VERSION` / `NAME@vN` in the form of the other commands, `NAME:vN`."""
    base, at, version = spec.rpartition("@")
    if not at:
        return spec
    return f"{base}:v{version.removeprefix('v')}"


def rubric_item_find(*, dataset: str, question_id: str, position: int) -> RubricItem:
    """The criterion at ``position`` of case ``question_id`` in ``dataset`` (NAME[@VERSION])."""
    try:
        found = dataset_resolve(name=dataset_spec_normalise(dataset))
    except DatasetNotFound as exc:
        raise RubricItemNotFound(str(exc)) from exc
    item = (
        RubricItem.objects.select_related("case__dataset")
        .filter(case__dataset=found, case__question_id=question_id, position=position)
        .first()
    )
    if item is None:
        raise RubricItemNotFound(f"{found} has no criterion {position} in case {question_id!r}")
    return item


@dataclass(frozen=True)
class VersionView:
    """One version of a criterion with what changed from the version before it."""

    number: int
    text: str
    points: int | None
    author: str
    reason: str
    created_at: datetime | None
    diff: RubricDiff | None  # None for the first version
    current: bool
    disagreement: dict | None = None  # the study item that prompted the edit


def rubric_item_history(*, item: RubricItem) -> list[VersionView]:
    """Every version of ``item``, oldest first. A criterion never edited has no version rows:
    its history is the imported text alone, shown as version 1."""
    rows = list(RubricItemVersion.objects.filter(item=item).select_related("author"))
    if not rows:
        return [
            VersionView(1, item.text, item.points, "", "imported", None, None, item.version == 1)
        ]
    history, previous = [], None
    for row in rows:
        diff = None
        if previous is not None:
            diff = rubric_diff(
                before_text=previous.text,
                after_text=row.text,
                before_points=previous.points,
                after_points=row.points,
            )
        history.append(
            VersionView(
                number=row.number,
                text=row.text,
                points=row.points,
                author=row.author.get_username() if row.author else "",
                reason=row.reason,
                created_at=row.created_at,
                diff=diff,
                current=row.number == item.version,
                disagreement=row.disagreement,
            )
        )
        previous = row
    return history


def rubric_item_versions(*, item_ids: Iterable[int]) -> dict[int, int]:
    """The current version number of each criterion."""
    return dict(RubricItem.objects.filter(pk__in=list(item_ids)).values_list("pk", "version"))


def rubric_version_reasons(*, item_ids: Iterable[int] | QuerySet) -> dict[int, list[dict]]:
    """Per criterion, the edits made to it (versions after the first), oldest first.
    ``item_ids`` may be a subquery (``values("pk")``) rather than thousands of ids."""
    ids = item_ids if isinstance(item_ids, QuerySet) else list(item_ids)
    found: dict[int, list[dict]] = {}
    for item_id, number, reason, author, at in (
        RubricItemVersion.objects.filter(item_id__in=ids, number__gt=1)
        .order_by("item_id", "number")
        .values_list("item_id", "number", "reason", "author__username", "created_at")
    ):
        found.setdefault(item_id, []).append(
            {"version": number, "reason": reason, "author": author or "", "at": at.isoformat()}
        )
    return found


def case_criteria(*, case_id) -> QuerySet[RubricItem]:
    """The criteria of one case (``case_id`` may be an ``OuterRef``), unordered."""
    return RubricItem.objects.filter(case_id=case_id)


def cases_criteria(*, case_ids) -> QuerySet[RubricItem]:
    """The criteria of these cases (ids, or a subquery of ids), unordered."""
    return RubricItem.objects.filter(case_id__in=case_ids)


def dataset_criteria(*, dataset) -> QuerySet[RubricItem]:
    """Every criterion of every case of ``dataset``, unordered."""
    return RubricItem.objects.filter(case__dataset=dataset)


def criteria_by_id(*, ids) -> QuerySet[RubricItem]:
    """The criteria of these ids, unordered."""
    return RubricItem.objects.filter(pk__in=ids)


def criterion_versions(*, item_ids) -> QuerySet[RubricItemVersion]:
    """Every stored version of these criteria."""
    return RubricItemVersion.objects.filter(item_id__in=item_ids)


def dataset_criterion_versions(*, dataset_id: int) -> QuerySet[RubricItemVersion]:
    """Every stored version of every criterion of the dataset."""
    return RubricItemVersion.objects.filter(item__case__dataset_id=dataset_id)
