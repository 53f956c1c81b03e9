"""The difference between two versions of a rubric criterion (pure: no ORM).

Criteria are Chinese sentences without spaces between words, so a word-level diff would see a
whole clause as one "word". Text is cut into tokens instead: every CJK character (and every
punctuation mark) on its own, a run of Latin letters or digits as one token, a run of spaces
as one token. ``difflib`` then aligns the token lists, and neighbouring tokens with the same
operation are merged back into readable segments.
"""

import difflib
import re
from dataclasses import dataclass
from html import escape
from typing import Any

# A Latin word or number (with inner apostrophes, hyphens and decimal points), a run of
# whitespace, or any other single character (a CJK character, a punctuation mark).
_TOKEN = re.compile(r"[A-Za-z0-9]+(?:['’.\-][A-Za-z0-9]+)*|\s+|.", re.DOTALL)

EQUAL, INSERT, DELETE = "equal", "insert", "delete"


@dataclass(frozen=True)
class Segment:
    op: str  # EQUAL, INSERT or DELETE
    text: str


@dataclass(frozen=True)
class RubricDiff:
    """What changed from one version of a criterion to the next."""

    segments: tuple[Segment, ...]
    points_before: int | None
    points_after: int | None

    @property
    def text_changed(self) -> bool:
        return any(segment.op != EQUAL for segment in self.segments)

    @property
    def points_changed(self) -> bool:
        return self.points_before != self.points_after

    @property
    def changed(self) -> bool:
        return self.text_changed or self.points_changed

    def inline(self) -> str:
        """The text with deletions as ``[-…-]`` and insertions as ``{+…+}`` (plain text)."""
        return diff_inline(self.segments)

    def html(self) -> str:
        """The text with ``<del>`` and ``<ins>`` marks; every piece of text is escaped."""
        return diff_html(self.segments)

    def as_dict(self) -> dict[str, Any]:
        return {
            "text_changed": self.text_changed,
            "text_diff": self.inline() if self.text_changed else "",
            "inserted": "".join(s.text for s in self.segments if s.op == INSERT),
            "deleted": "".join(s.text for s in self.segments if s.op == DELETE),
            "points_changed": self.points_changed,
            "points_before": self.points_before,
            "points_after": self.points_after,
        }


def tokens(text: str) -> list[str]:
    """Diff tokens of ``text``; joined together they give ``text`` back exactly."""
    return _TOKEN.findall(text)


def _merge(segments: list[Segment]) -> tuple[Segment, ...]:
    merged: list[Segment] = []
    for segment in segments:
        if not segment.text:
            continue
        if merged and merged[-1].op == segment.op:
            merged[-1] = Segment(segment.op, merged[-1].text + segment.text)
        else:
            merged.append(segment)
    return tuple(merged)


def text_diff(before: str, after: str) -> tuple[Segment, ...]:
    """Segments that turn ``before`` into ``after``: a replacement is a deletion then an
    insertion. Joining the EQUAL and DELETE segments gives ``before``; EQUAL and INSERT give
    ``after``."""
    old, new = tokens(before), tokens(after)
    # autojunk would treat frequent characters (的, 。) as noise in longer texts.
    matcher = difflib.SequenceMatcher(a=old, b=new, autojunk=False)
    segments: list[Segment] = []
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            segments.append(Segment(EQUAL, "".join(old[i1:i2])))
            continue
        if op in ("delete", "replace"):
            segments.append(Segment(DELETE, "".join(old[i1:i2])))
        if op in ("insert", "replace"):
            segments.append(Segment(INSERT, "".join(new[j1:j2])))
    return _merge(segments)


def rubric_diff(
    *, before_text: str, after_text: str, before_points: int | None, after_points: int | None
) -> RubricDiff:
    """The text and points change between two versions of a criterion."""
    return RubricDiff(text_diff(before_text, after_text), before_points, after_points)


def diff_inline(segments: tuple[Segment, ...]) -> str:
    marks = {EQUAL: "{}", DELETE: "[-{}-]", INSERT: "{{+{}+}}"}
    return "".join(marks[s.op].format(s.text) for s in segments)


def diff_html(segments: tuple[Segment, ...]) -> str:
    tags = {EQUAL: "{}", DELETE: "<del>{}</del>", INSERT: "<ins>{}</ins>"}
    return "".join(tags[s.op].format(escape(s.text)) for s in segments)


def points_text(points: int | None) -> str:
    return "null" if points is None else f"{points:+d}"
