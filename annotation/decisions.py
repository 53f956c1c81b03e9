"""Checking a senior expert's adjudication decisions against the criteria to decide (pure)."""

from collections.abc import Collection, Mapping

from django.utils.translation import gettext

from annotation.labels import MAX_NOTE_CHARS, InvalidLabels, LabelValue


class InvalidDecisions(InvalidLabels):
    """The decisions are malformed, incomplete or name criteria not to decide here."""

    field = "decisions"


def decisions_parse(raw: object, *, criteria: Collection[str]) -> dict[str, LabelValue]:
    """Map opaque criterion id → decision; every criterion needs met/not met and a reason.

    The reason is what the report shows next to an overturned majority, so an empty or
    whitespace-only reason is refused rather than stored.
    """
    if not isinstance(raw, list):
        raise InvalidDecisions(gettext("decisions must be a list of {criterion, hit, reason}"))
    parsed: dict[str, LabelValue] = {}
    for index, entry in enumerate(raw):
        where = f"decisions[{index}]"
        if not isinstance(entry, Mapping):
            raise InvalidDecisions(f"{where}: must be an object")
        unknown = set(entry) - {"criterion", "hit", "reason"}
        if unknown:
            raise InvalidDecisions(f"{where}: unknown field(s) {sorted(unknown)}")
        criterion = entry.get("criterion")
        # A list or an object is no id (and cannot be looked up in a set of them).
        if not isinstance(criterion, str) or criterion not in criteria:
            raise InvalidDecisions(f"{where}: {criterion!r} is not a criterion to decide here")
        if criterion in parsed:
            raise InvalidDecisions(f"{where}: criterion {criterion!r} decided twice")
        hit = entry.get("hit")
        if not isinstance(hit, bool):
            raise InvalidDecisions(f"{where}: hit must be true (met) or false (not met)")
        reason = entry.get("reason")
        if not isinstance(reason, str) or not reason.strip():
            raise InvalidDecisions(f"{where}: a reason is required for every decision")
        if len(reason) > MAX_NOTE_CHARS:
            raise InvalidDecisions(
                f"{where}: the reason is longer than {MAX_NOTE_CHARS} characters"
            )
        parsed[criterion] = LabelValue(hit=hit, note=reason.strip())
    missing = len(set(criteria) - set(parsed))
    if missing:
        raise InvalidDecisions(f"{missing} criteria have no decision; every one needs a decision")
    return parsed
