"""The pairwise judge's reply, its meaning for the stored pair, and the two orders' outcome
(pure: no database).

A usable reply is exactly one JSON object (a ```json fence around it is allowed) with two keys,
the reasoning first::

    {"reasoning": "…", "winner": "A"}

``winner`` is ``"A"``, ``"B"`` or ``"tie"`` about the order *shown*. Anything else — prose, a
missing or empty reasoning, the verdict before the reasoning, another winner, other keys — is a
:class:`~benchmark.llm.parser.ReplyError`, re-asked and in the end recorded as an error, as a
rubric verdict's is. Nothing is guessed.

The tie rule (:func:`pair_outcome`): each pair is judged in both orders; when the two canonical
choices agree that is the pair's outcome, when they differ the verdict flipped with the order:
the pair is *position-inconsistent* and counts as a tie.
"""

import json
import re
from dataclasses import dataclass

from benchmark.llm.parser import ReplyError

SHOWN_CHOICES = ("A", "B", "tie")
STORED, SWAPPED = "ab", "ba"  # response a shown first / response b shown first
ORDERS = (STORED, SWAPPED)
TIE = "tie"
_FENCE = re.compile(r"^```(?:json)?\s*|\s*```$")

PAIRWISE_SCHEMA: dict = {
    "type": "object",
    "properties": {
        "reasoning": {"type": "string"},
        "winner": {"type": "string", "enum": list(SHOWN_CHOICES)},
    },
    "required": ["reasoning", "winner"],
    "additionalProperties": False,
}


@dataclass(frozen=True)
class PairwiseReply:
    shown: str  # "A", "B" or "tie", about the order shown
    reasoning: str


def pairwise_reply_parse(text: str | None, refusal: str | None = None) -> PairwiseReply:
    """The choice and reasoning of a usable reply, else ``ReplyError`` saying why."""
    if text is None:
        raise ReplyError(f"the judge refused: {refusal or 'no content'}")
    body = _FENCE.sub("", text.strip())
    try:
        obj = json.loads(body)
    except ValueError:
        raise ReplyError("the reply is not one JSON object") from None
    if not isinstance(obj, dict):
        raise ReplyError("the reply is not one JSON object")
    if set(obj) != {"reasoning", "winner"}:
        raise ReplyError(f"keys must be reasoning and winner, got {sorted(obj)}")
    if list(obj) != ["reasoning", "winner"]:
        raise ReplyError("the reasoning must come before the winner")
    reasoning, winner = obj["reasoning"], obj["winner"]
    if not isinstance(reasoning, str) or not reasoning.strip():
        raise ReplyError("the reasoning is empty")
    if winner not in SHOWN_CHOICES:
        raise ReplyError(f'winner is {winner!r}, not "A", "B" or "tie"')
    return PairwiseReply(shown=winner, reasoning=reasoning.strip())


def shown_pair(*, order: str, response_a: str, response_b: str) -> tuple[str, str]:
    """The texts shown as A and as B in ``order``."""
    if order not in ORDERS:
        raise ValueError(f"order must be one of {ORDERS}, got {order!r}")
    return (response_a, response_b) if order == STORED else (response_b, response_a)


def canonical_choice(*, shown: str, order: str) -> str:
    """A choice about the order shown as one about the stored pair: ``a``, ``b`` or ``tie``."""
    if shown not in SHOWN_CHOICES or order not in ORDERS:
        raise ValueError(f"no canonical choice for {shown!r} in order {order!r}")
    if shown == TIE:
        return TIE
    first, second = ("a", "b") if order == STORED else ("b", "a")
    return first if shown == "A" else second


def pair_outcome(*, stored: str, swapped: str) -> tuple[str, bool]:
    """The pair's outcome from its two canonical choices, and whether they were consistent:
    a choice that flips with the order is position-inconsistent and counts as a tie."""
    if stored == swapped:
        return stored, True
    return TIE, False


def reask_message(*, problem: str) -> str:
    """The correction turn sent after a pairwise reply that could not be used."""
    return (
        f"你上面的输出无法使用：{problem}。请严格按照要求只输出一个 JSON 对象，"
        '先写 reasoning（比较理由），再写 winner，winner 只能是 "A"、"B" 或 "tie"，'
        "不要输出其他内容。"
    )
