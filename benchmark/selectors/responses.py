"""Reads of the models' responses to cases."""

from collections.abc import Iterable

from django.db.models import Count, QuerySet

from benchmark.models import Dataset, Response


def response_find(*, dataset: Dataset, question_id: str, model: str) -> QuerySet[Response]:
    """The response of the model of this name to case ``question_id`` of ``dataset`` (at most
    one row; the caller takes ``.first()``, with what it needs selected)."""
    return Response.objects.filter(
        case__dataset=dataset, case__question_id=question_id, model__name=model
    )


def responses_to(*, dataset: Dataset, models) -> QuerySet[Response]:
    """Every response of any of these models to a case of ``dataset``."""
    return Response.objects.filter(case__dataset=dataset, model__in=list(models))


def responses_of_cases(*, cases, models) -> QuerySet[Response]:
    """The responses of these models to these cases, with case and model, in case position
    then model name order."""
    return (
        Response.objects.filter(case__in=cases, model__in=list(models))
        .select_related("case", "model")
        .order_by("case__position", "model__name")
    )


def criteria_to_judge(*, model_ids: Iterable[int], dataset_ids: Iterable[int]) -> dict:
    """Per (model id, dataset id): how many criteria its responses to the dataset's cases hold,
    which is what a full judge run of that model on that dataset judges."""
    rows = (
        Response.objects.filter(model_id__in=model_ids, case__dataset_id__in=dataset_ids)
        .values_list("model_id", "case__dataset_id")
        .annotate(n=Count("case__rubric"))
        .order_by()
    )
    return {(m, d): n for m, d, n in rows}
