"""Self-validation's rules, without the database: which reference responses a draft's author
mock-scores, and how a mock score stands beside the judge's verdict.

The responses are chosen without looking at any verdict, so the author stays blind to the
judge: the first ``MOCK_RESPONSES_PER_DRAFT`` reference answers by model name.
"""

from collections.abc import Iterable, Sequence
from typing import NamedTuple, TypeVar

MOCK_RESPONSES_PER_DRAFT = 2

T = TypeVar("T")

# How one criterion × response pair stands, in the order the comparison explains them.
AGREE = "agree"
DISAGREE = "disagree"
JUDGE_ERROR = "judge_error"  # the judge answered, but with an error: no verdict to compare
NO_VERDICT = "no_verdict"  # no judged snapshot holds the criterion at the labelled version
NOT_LABELLED = "not_labelled"  # submitted before the criterion existed


class MockScorePair(NamedTuple):
    """One submitted mock score beside the judge's verdict on the same version: what the
    construction report's agreement is computed from (``draft`` is its cluster)."""

    draft: str
    criterion: int
    response: int
    author_met: bool
    judge_met: bool


def responses_choose(
    responses: Iterable[T], *, model_name, k: int = MOCK_RESPONSES_PER_DRAFT
) -> list[T]:
    """The first ``k`` responses by their model's name (ties cannot occur: one answer per
    model and draft)."""
    return sorted(responses, key=model_name)[:k]


def response_letter(index: int) -> str:
    """How the author knows the i-th chosen response: A, B, … (never by its model)."""
    return chr(ord("A") + index)


def pair_state(*, author_met: bool | None, judge_state: str | None) -> str:
    """Agree or disagree when both have a label; otherwise which side is missing. The judge's
    state is a ``Verdict.State`` value ("met", "not_met", "error") or None."""
    if author_met is None:
        return NOT_LABELLED
    if judge_state is None:
        return NO_VERDICT
    if judge_state == "error":
        return JUDGE_ERROR
    return AGREE if author_met == (judge_state == "met") else DISAGREE


def labels_missing(*, criteria: Sequence[int], labels: dict[int, bool]) -> list[int]:
    """The criteria (by id, in the order given) without a label."""
    return [criterion for criterion in criteria if criterion not in labels]
