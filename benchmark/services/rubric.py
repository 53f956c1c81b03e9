"""Editing a rubric criterion: every edit is a new numbered version with author and reason.

A criterion starts at version 1, the text and points the dataset was imported with; the
importer writes no version rows (a dataset has thousands of criteria and most are never
edited), so the first edit also stores that original as version 1 (no author, reason
"imported"). From then on the history is complete: one ``RubricItemVersion`` per number.

An edit is a curated change on top of an imported dataset version, not a new dataset
version: ``Dataset.content_hash`` keeps describing the file that was imported, and the
version history (and the audit trail) says what was changed on top of it, when, by whom and
why. Labels and verdicts are never touched: each keeps the version number it was made on, so
reports can say which of them were made on an older text.
"""

from collections.abc import Mapping
from typing import Any, Final

from django.db import transaction
from django.utils.translation import gettext as _

from benchmark.audit_actions import BenchmarkAction
from benchmark.models import RubricItem, RubricItemVersion
from benchmark.rubric_diff import rubric_diff
from benchmark.services.audit import audit_record
from benchmark.taxonomy import CATASTROPHIC

IMPORTED_REASON: Final = "imported"
# The largest magnitude an integer column holds on every backend.
MAX_POINTS: Final = 2**31 - 1


class RubricEditError(ValueError):
    """The edit is refused: nothing changed, no reason, or points the rules do not allow."""


class _Keep:
    """Default of ``points``: leave them as they are (None is a value: a catastrophic
    criterion's points may be null)."""

    def __repr__(self) -> str:
        return "KEEP"


KEEP: Final = _Keep()


def rubric_points_check(*, ability: str, points: Any) -> int | None:
    """The points a criterion of ``ability`` may carry, by the importer's rules and the data.

    Scored criteria carry a nonzero integer (its sign says whether meeting it helps or hurts).
    The catastrophic criterion (其他) carries null, as 295 of the released cases do, or a
    negative integer, as the second catastrophic criterion of case c8nGp1 does (−4); it zeroes
    the case whatever its points, so a positive value would only mislead.
    """
    if points is None:
        if ability != CATASTROPHIC:
            raise RubricEditError(_("Null points are allowed only on the catastrophic criterion."))
        return None
    if isinstance(points, bool) or not isinstance(points, int):
        raise RubricEditError(_("Points must be a whole number."))
    if points == 0:
        raise RubricEditError(_("Points must not be zero."))
    if abs(points) > MAX_POINTS:
        raise RubricEditError(_("Points are out of range."))
    if ability == CATASTROPHIC and points > 0:
        raise RubricEditError(
            _("The catastrophic criterion carries null or negative points, never positive ones.")
        )
    return points


def rubric_disagreement_check(value: Mapping[str, Any] | None) -> dict[str, str] | None:
    """The study item an edit records as its prompt: ``{"study": name, "unit": token}``,
    both non-empty text of the lengths their fields allow, or None."""
    if value is None:
        return None
    study, unit = value.get("study"), value.get("unit")
    if set(value) != {"study", "unit"} or not all(
        isinstance(v, str) and v.strip() for v in (study, unit)
    ):
        raise RubricEditError(_("A disagreement names its study and unit."))
    if len(study) > 200 or len(unit) > 20:
        raise RubricEditError(_("The study or unit named is too long."))
    return {"study": study, "unit": unit}


def _original_version(item: RubricItem) -> RubricItemVersion:
    return RubricItemVersion.objects.create(
        item=item, number=1, text=item.text, points=item.points, author=None,
        reason=IMPORTED_REASON,
    )  # fmt: skip


def rubric_item_edit(
    *,
    item: RubricItem,
    text: str | None = None,
    points: int | _Keep | None = KEEP,
    author,
    reason: str,
    disagreement: Mapping[str, str] | None = None,
) -> RubricItemVersion:
    """Change a criterion's text and/or points as a new version; returns the new version.

    Refuses an edit without a reason or an author, one that changes nothing, blank text, and
    points the rules do not allow (:func:`rubric_points_check`). The item row is locked for
    the whole edit, so two concurrent edits of one criterion get versions n+1 and n+2 in turn
    (the second sees the first's text). Writes an audit row with the diff. ``item`` is
    updated in memory too. ``disagreement`` names the study item that prompted the edit
    (:func:`rubric_disagreement_check`); the version keeps it and the history links it.
    """
    reason = (reason or "").strip()
    if not reason:
        raise RubricEditError(_("Give a reason for the change."))
    if author is None:
        raise RubricEditError(_("An edit needs an author."))
    if text is not None and not text.strip():
        raise RubricEditError(_("The text of a criterion must not be empty."))
    disagreement = rubric_disagreement_check(disagreement)
    with transaction.atomic():
        locked = (
            RubricItem.objects.select_for_update(of=("self",))
            .select_related("case__dataset")
            .get(pk=item.pk)
        )
        new_text = locked.text if text is None else text
        new_points = (
            locked.points
            if isinstance(points, _Keep)
            else rubric_points_check(ability=locked.ability, points=points)
        )
        diff = rubric_diff(
            before_text=locked.text,
            after_text=new_text,
            before_points=locked.points,
            after_points=new_points,
        )
        if not diff.changed:
            raise RubricEditError(_("Nothing changed: the text and points are the same."))
        if locked.version == 1 and not locked.versions.filter(number=1).exists():
            _original_version(locked)
        version = RubricItemVersion.objects.create(
            item=locked,
            number=locked.version + 1,
            text=new_text,
            points=new_points,
            author=author,
            reason=reason,
            disagreement=disagreement,
        )
        before = {"version": locked.version, "text": locked.text, "points": locked.points}
        locked.text, locked.points, locked.version = new_text, new_points, version.number
        locked.save(update_fields=["text", "points", "version"])
        case = locked.case
        audit_record(
            actor=author,
            action=BenchmarkAction.RUBRIC_EDIT,
            obj=locked,
            data={
                "dataset": str(case.dataset),
                "case": case.question_id,
                "position": locked.position,
                "from_version": before["version"],
                "to_version": version.number,
                "reason": reason,
                "disagreement": disagreement,
                "text_before": before["text"],
                "text_after": new_text,
                **diff.as_dict(),
            },
        )
    item.text, item.points, item.version = new_text, new_points, version.number
    return version
