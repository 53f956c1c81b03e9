"""Reads of the rows the demo loaded (``benchmark.services.demo``), for their removal."""

from django.db.models import QuerySet

from benchmark.models import Dataset, Judge, ModelUnderTest
from benchmark.services.demo import DEMO_JUDGE


def demo_datasets() -> QuerySet[Dataset]:
    """Every dataset imported as demo data."""
    return Dataset.objects.filter(is_demo=True)


def demo_models() -> QuerySet[ModelUnderTest]:
    """Every model under test the demo added."""
    return ModelUnderTest.objects.filter(is_demo=True)


def demo_judges() -> QuerySet[Judge]:
    """The demo's judge, unless it also judged real data (then it stays)."""
    return Judge.objects.filter(name=DEMO_JUDGE).exclude(runs__dataset__is_demo=False)
