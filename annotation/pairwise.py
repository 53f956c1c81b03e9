"""A pairwise choice as the expert makes it and as it is stored (pure).

The expert sees the pair's two responses as A (first) and B (second); which of the pair's
stored responses comes first is drawn per assignment from its shuffle seed, so the raters of
a pair do not all see it in one order, and a reload shows the same page. The choice is stored
in the pair's own order (``a`` is its ``response_a``) with the side that was shown first.
"""

from dataclasses import dataclass

from django.utils.translation import gettext

from annotation.labels import MAX_NOTE_CHARS, InvalidLabels

SHOWN_CHOICES = ("a", "b", "tie")  # as the expert saw them: a is the response shown first


class InvalidChoice(InvalidLabels):
    """The choice or its reason is malformed (a 400 naming the field)."""

    def __init__(self, message: str, *, field: str = "choice") -> None:
        super().__init__(message)
        self.field = field


@dataclass(frozen=True)
class Choice:
    winner: str  # in the pair's stored order: a, b or tie
    first_shown: str  # a or b
    reason: str


def first_shown(shuffle_seed: int) -> str:
    """Which stored response the assignment shows first: ``a`` or ``b``."""
    return "b" if shuffle_seed % 2 else "a"


def as_shown(winner: str, *, shuffle_seed: int) -> str:
    """A choice stored in the pair's order (``a``, ``b``, ``tie``) as the assignment shows it
    (``a``: the response shown first)."""
    if winner == "tie" or first_shown(shuffle_seed) == "a":
        return winner
    return "b" if winner == "a" else "a"


def choice_parse(
    *, choice: object, reason: object, shuffle_seed: int, reason_required: bool = False
) -> Choice:
    """The expert's choice about the order shown (``a`` first, ``b`` second, ``tie``) and a
    reason (optional unless ``reason_required``: a senior's decision is shown with its
    reason), in the pair's stored order; InvalidChoice names what is wrong."""
    if choice not in SHOWN_CHOICES:
        raise InvalidChoice(gettext("choose a, b or tie"))
    if reason is None:
        reason = ""
    if not isinstance(reason, str) or "\x00" in reason:
        raise InvalidChoice(gettext("the reason must be text"), field="reason")
    if len(reason) > MAX_NOTE_CHARS:
        raise InvalidChoice(
            gettext("the reason is longer than %(n)d characters") % {"n": MAX_NOTE_CHARS},
            field="reason",
        )
    if reason_required and not reason.strip():
        raise InvalidChoice(gettext("a reason is required for a decision"), field="reason")
    first = first_shown(shuffle_seed)
    second = "b" if first == "a" else "a"
    winner = {"a": first, "b": second, "tie": "tie"}[str(choice)]
    return Choice(winner=winner, first_shown=first, reason=reason.strip())
