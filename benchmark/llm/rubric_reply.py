"""Read a synthesiser's draft rubric for one case, or say every reason it cannot be used
(pure: the re-ask sends these reasons back to the model).

The reply is one JSON object (a ```json fence around it is allowed)::

    {"criteria": [{"ability": "warmth", "points": 3, "text": "AI…"}, …,
                  {"ability": "catastrophic", "points": null, "text": "AI…"}]}

``ability`` is a code of :mod:`benchmark.taxonomy` or its Chinese name (温暖); ``points`` a
non-zero integer from ``POINTS_MIN`` to ``POINTS_MAX`` (the released data's range; negative for
harmful behaviour), null on the catastrophic criterion and only there; ``text`` a binary
observation (:func:`benchmark.rubric_rules.criterion_wording_problems`). The criteria together
must make a rubric (:func:`benchmark.rubric_rules.rubric_problems`: the count, exactly one
catastrophic criterion, …).
"""

import json
import re
from dataclasses import dataclass

from benchmark.llm.parser import ReplyError
from benchmark.rubric_rules import criterion_wording_problems, rubric_problems
from benchmark.taxonomy import CATASTROPHIC, ability_code

POINTS_MIN, POINTS_MAX = -10, 10
MAX_LISTED = 8  # problems named in one re-ask; the rest are counted
_FENCE = re.compile(r"^```(?:json)?\s*|\s*```$")


@dataclass(frozen=True)
class ProposedCriterion:
    ability: str  # a taxonomy code
    points: int | None
    text: str


def rubric_reply_read(text: str | None, refusal: str | None) -> list[ProposedCriterion]:
    """The criteria of a usable reply, in its order; ``ReplyError`` naming every problem."""
    if text is None:
        raise ReplyError(f"the model refused: {refusal or 'no content'}")
    try:
        value = json.loads(_FENCE.sub("", text.strip()))
    except ValueError as exc:
        raise ReplyError(f"not JSON: {exc}") from None
    items = value.get("criteria") if isinstance(value, dict) else None
    if not isinstance(items, list) or not items:
        raise ReplyError('not an object with a non-empty list "criteria"')
    criteria, problems = [], []
    for number, item in enumerate(items, start=1):
        try:
            criteria.append(_criterion(item))
        except ValueError as exc:
            problems.append(f"criterion {number}: {exc}")
    if not problems:
        problems = rubric_problems([(c.ability, c.points, c.text) for c in criteria])
    if problems:
        more = len(problems) - MAX_LISTED
        listed = "; ".join(problems[:MAX_LISTED]) + (f"; and {more} more" if more > 0 else "")
        raise ReplyError(listed)
    return criteria


def _criterion(item: object) -> ProposedCriterion:
    """One criterion of the reply; ValueError with every reason it is unusable."""
    if not isinstance(item, dict):
        raise ValueError("not an object with ability, points and text")
    reasons = []
    ability = ability_code(str(item.get("ability", "")))
    if ability is None:
        reasons.append(f"unknown ability {item.get('ability')!r}")
    points = item.get("points")
    if ability == CATASTROPHIC:
        if points is not None:
            reasons.append("the catastrophic criterion's points must be null")
    elif (
        isinstance(points, bool)
        or not isinstance(points, int)
        or points == 0
        or not POINTS_MIN <= points <= POINTS_MAX
    ):
        reasons.append(
            f"points must be a non-zero whole number from {POINTS_MIN} to {POINTS_MAX}, "
            f"not {points!r}"
        )
    text = item.get("text")
    if not isinstance(text, str) or not text.strip():
        reasons.append("the text is empty")
    else:
        text = " ".join(text.split())
        reasons.extend(criterion_wording_problems(text))
    if reasons:
        raise ValueError("; ".join(reasons))
    return ProposedCriterion(ability=ability, points=points, text=text)


def rubric_reask_message(problem: str) -> str:
    """The correction turn sent after an unusable draft rubric."""
    return (
        f"你上面的输出无法使用：{problem}。请修正这些问题，只输出要求的 JSON 对象，"
        "不要输出其他内容。"
    )
