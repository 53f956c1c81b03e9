"""Reads of single verdicts for pages that show them whole."""

from collections.abc import Iterable

from benchmark.models import Verdict


def verdicts_shown(*, ids: Iterable[int]) -> dict[int, Verdict]:
    """The verdicts of these ids with their run's judge, their response and its case, and
    their criterion: what a page needs to show reasoning and raw reply in context."""
    return Verdict.objects.select_related("run__judge", "response__case", "rubric_item").in_bulk(
        list(ids)
    )
