"""What makes a criterion binary, and a draft case's rubric whole (pure, no ORM).

A criterion states one behaviour the judged reply shows or does not show (the paper's
"binary presence/absence observation"). Its wording is refused when it:

* is longer than ``MAX_TEXT`` characters (the released criteria run 9–106): one observation,
  not a paragraph;
* asks a question (``？``/``?``) instead of stating the behaviour;
* asks for a degree or a rating (打分, 评分, 多大程度, 1-5 分, "to what extent", …): a
  criterion is met or not, never scored on a scale;
* joins two observations with "and/or" (和/或, and/or), which leaves open whether one
  half alone meets it.

Quoted example utterances (「…」, “…”, '…', …), parenthesised examples and an example
introduced by 如/例如/比如 with a quote or colon are not the criterion's own wording and are
not checked: the released criteria quote the questions a
reply might ask. Every one of the 3,114 released criteria passes.

A rubric (a case's criteria, as ``(ability, points, text)``) is whole when it has between
``MIN_CRITERIA`` and ``MAX_CRITERIA`` criteria, exactly one of them catastrophic, at least one
with positive points, and no text twice. The released cases have 4–23; two of them break the
one-catastrophic rule (the known quirks ``XzV0Im`` and ``c8nGp1``, DESIGN.md).
"""

import re
from collections import Counter

from django.utils.translation import gettext as _

from benchmark.taxonomy import CATASTROPHIC

MAX_TEXT = 200
MIN_CRITERIA = 4
MAX_CRITERIA = 24

_EXAMPLES = re.compile(
    r"「[^」]*」|『[^』]*』|“[^”]*[”\"]|\"[^\"”]*[\"”]|[‘’'][^‘’']*[‘’']|（[^（）]*）|\([^()]*\)"
)
# An example introduced by 如/例如/比如 (or "e.g.") with a quote, colon or bracket runs to the
# end of the text, whatever quotes it nests.
_EXAMPLE_TAIL = re.compile(
    r"(?:例如|比如|譬如|如)\s*[：:]?\s*[「『“\"'‘’（(].*$|(?:e\.g\.|for example).*$", re.DOTALL
)
_QUESTION = re.compile(r"[？?]")
_SCALE = re.compile(
    r"打分|评分|几分|满分|分值|多大程度|何种程度|程度如何|程度高低|优劣"
    r"|\d+\s*(?:-|–|~|～|到|至)\s*\d+\s*分"
    r"|to what extent|how well|on a scale|likert|\brating\b",
    re.IGNORECASE,
)
_AND_OR = re.compile(r"(?:和|与|及|且)\s*/\s*或|或\s*/\s*(?:和|与|及|且)|and\s*/\s*or", re.I)


def criterion_wording_problems(text: str) -> list[str]:
    """Why ``text`` is not a binary observation (empty when it is); ``text`` is non-empty."""
    own = _EXAMPLES.sub("", _EXAMPLE_TAIL.sub("", text))
    problems = []
    if len(text) > MAX_TEXT:
        problems.append(
            _("The text is %(length)d characters long (at most %(max)d): one observation.")
            % {"length": len(text), "max": MAX_TEXT}
        )
    if _QUESTION.search(own):
        problems.append(
            _("The text asks a question: state the behaviour the reply shows or does not show.")
        )
    scale = _SCALE.search(own)
    if scale:
        problems.append(
            _("“%(word)s” asks for a degree or a rating: a criterion is met or not.")
            % {"word": scale.group(0)}
        )
    if _AND_OR.search(own):
        problems.append(_("“and/or” joins two observations: write them as two criteria."))
    return problems


def rubric_problems(items: list[tuple[str, int | None, str]]) -> list[str]:
    """Why the criteria ``(ability, points, text)`` do not make a case's rubric (empty when
    they do)."""
    problems = []
    if not MIN_CRITERIA <= len(items) <= MAX_CRITERIA:
        problems.append(
            _("The rubric has %(count)d criteria (from %(min)d to %(max)d, the catastrophic "
              "one included).")
            % {"count": len(items), "min": MIN_CRITERIA, "max": MAX_CRITERIA}
        )  # fmt: skip
    catastrophic = sum(1 for ability, _points, _text in items if ability == CATASTROPHIC)
    if catastrophic != 1:
        problems.append(
            _("The rubric has %(count)d catastrophic criteria (exactly one).")
            % {"count": catastrophic}
        )
    if not any(points is not None and points > 0 for _ability, points, _text in items):
        problems.append(_("No criterion has positive points."))
    repeated = [
        text for text, n in Counter(" ".join(t.split()) for *_, t in items).items() if n > 1
    ]
    if repeated:
        problems.append(_("The same text twice: %(text)s") % {"text": repeated[0]})
    return problems
