"""Reads of single verdicts for pages and exports that show them beside other data."""

from collections.abc import Iterable

from django.db.models import QuerySet

from benchmark.models import Verdict


def verdicts_shown(*, ids: Iterable[int]) -> dict[int, Verdict]:
    """The verdicts of these ids with their response and its case: what a page needs to show
    the raw reply beside the dialogue and the response."""
    return Verdict.objects.select_related("response__case").in_bulk(list(ids))


def verdict_reasonings(*, ids: Iterable[int]) -> dict[int, tuple[str, int, str, int]]:
    """Per verdict id: its reasoning, the criterion version it saw, and its criterion's text
    and current version; plain values, so thousands of rows (an export) load quickly."""
    rows = Verdict.objects.filter(pk__in=list(ids)).values_list(
        "pk", "reasoning", "rubric_version", "rubric_item__text", "rubric_item__version"
    )
    return {pk: tuple(rest) for pk, *rest in rows}


def run_verdicts(*, runs, responses=None) -> QuerySet[Verdict]:
    """The verdicts of these runs (runs or ids), of these responses only when given."""
    verdicts = Verdict.objects.filter(run__in=runs)
    if responses is not None:
        verdicts = verdicts.filter(response_id__in=responses)
    return verdicts
