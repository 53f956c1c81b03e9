"""Which judge a leaderboard compares models under, and which of its rows get a rank (pure).

Scores of different judges are not comparable (one judge may be more lenient, and may have
judged one case where another judged all of them), so a leaderboard never mixes judges:

* asked for a judge, it shows that judge's runs;
* otherwise it shows the judge that covers the **most models**, then the most scored cases
  (summed over those models), then the first judge name in alphabetical order;
* models that judge never judged are not rows: the board lists them with the judges that did.

Rows of one judge may still differ in how it was asked (temperature, seed, a subset of the
cases, per response or per criterion): each row states its settings (``judge_settings``), the
board says when they differ, and ``--run ID`` picks a model's run instead of its newest.

A row is ranked when its model has a score and its coverage (scored cases / cases of the split)
is at least ``min_coverage`` (90 % by default). Ranked rows come first, best overall score
first (equal scores by model name) and numbered 1, 2, 3…; unranked rows follow, shown with
their scores but without a rank, in the same order.
"""

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from django.utils.translation import gettext_noop

DEFAULT_MIN_COVERAGE = 0.9
CHOSEN_BY_REQUEST = "requested"
CHOSEN_BY_MOST_MODELS = "most models"


@dataclass(frozen=True)
class JudgeCoverage:
    judge: str
    models: int  # models with a run by this judge on the dataset
    scored_cases: int  # scored cases summed over those models' runs (every case of the dataset)


def judge_order(candidates: Sequence[JudgeCoverage]) -> list[JudgeCoverage]:
    """Candidates best first: most models, then most scored cases, then by name."""
    return sorted(candidates, key=lambda c: (-c.models, -c.scored_cases, c.judge))


def judge_choose(candidates: Sequence[JudgeCoverage]) -> JudgeCoverage | None:
    """The default judge of a leaderboard, or None when no judge ran on the dataset."""
    ordered = judge_order(candidates)
    return ordered[0] if ordered else None


def coverage_share(*, scored: int, total: int) -> float:
    return scored / total if total else 0.0


def rows_rank(
    rows: Sequence[tuple[str, float | None, int, int]], *, min_coverage: float
) -> list[tuple[int, int | None]]:
    """Board order of ``rows`` (model, overall, scored cases, cases) as (row index, rank or
    None): ranked rows first, then the rows under the coverage threshold or without a score."""

    def ranked(row: tuple[str, float | None, int, int]) -> bool:
        _, overall, scored, total = row
        # Compared as counts, so 27 of 30 cases is exactly 90 % whatever the float rounding.
        return overall is not None and total > 0 and scored >= min_coverage * total - 1e-9

    order = sorted(
        range(len(rows)),
        key=lambda i: (not ranked(rows[i]), rows[i][1] is None, -(rows[i][1] or 0), rows[i][0]),
    )
    result, rank = [], 0
    for i in order:
        if ranked(rows[i]):
            rank += 1
            result.append((i, rank))
        else:
            result.append((i, None))
    return result


def judge_settings(record: dict, *, source: str, translate: Callable[[str], str] = str) -> str:
    """How a row's run asked its judge, in words (``judge_run_record``'s fields); English for
    the board's data and the command line, ``translate`` (gettext) for a page."""
    if source != "engine":
        return translate(gettext_noop("imported verdicts"))
    temperature = record.get("temperature")
    parts = [
        translate(gettext_noop("provider's temperature"))
        if temperature is None
        else translate(gettext_noop("temperature %(value)s")) % {"value": f"{temperature:g}"}
    ]
    if record.get("seed") is not None:
        parts.append(translate(gettext_noop("seed %(value)s")) % {"value": record["seed"]})
    if record.get("limit") is not None:
        parts.append(translate(gettext_noop("first %(value)s cases")) % {"value": record["limit"]})
    if record.get("sample_ids"):
        parts.append(translate(gettext_noop("cases %(value)s")) % {"value": record["sample_ids"]})
    item = record.get("granularity") == "item"
    parts.append(translate(gettext_noop("per criterion") if item else gettext_noop("per response")))
    return ", ".join(parts)
