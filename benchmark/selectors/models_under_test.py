"""Reads of the models under test by name, id or the datasets they answered."""

from collections.abc import Iterable

from django.db.models import QuerySet

from benchmark.models import Dataset, ModelUnderTest


def model_names() -> list[str]:
    """The name of every model under test, alphabetically."""
    return list(ModelUnderTest.objects.order_by("name").values_list("name", flat=True))


def models_of_names(*, names: Iterable[str]) -> QuerySet[ModelUnderTest]:
    """The models of these names (those that exist), unordered."""
    return ModelUnderTest.objects.filter(name__in=names)


def model_names_by_id(*, ids: Iterable[int]) -> dict[int, str]:
    """Per model id: its name."""
    return dict(ModelUnderTest.objects.filter(pk__in=list(ids)).values_list("pk", "name"))


def models_with_responses(*, dataset: Dataset) -> QuerySet[ModelUnderTest]:
    """The models with at least one response to a case of ``dataset``."""
    return ModelUnderTest.objects.filter(responses__case__dataset=dataset).distinct()
