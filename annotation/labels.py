"""Checking the labels an expert sends against the criteria of the assignment (pure)."""

from collections.abc import Collection, Mapping
from dataclasses import dataclass, field

from django.utils.translation import gettext

MAX_NOTE_CHARS = 2000


class InvalidLabels(ValueError):
    """The labels are malformed, incomplete or name criteria not on this assignment."""

    field = "labels"  # the body's field a 400 names


@dataclass(frozen=True)
class LabelValue:
    hit: bool | None
    note: str
    # The rubric version the workbench showed, when it says; not part of the label's value
    # (a repeated submission is the same whatever version it names).
    version: int | None = field(default=None, compare=False)


def labels_parse(
    raw: object, *, criteria: Collection[str], complete: bool
) -> dict[str, LabelValue]:
    """Map opaque criterion id → label; ``complete`` demands a hit/miss for every criterion."""
    if not isinstance(raw, list):
        raise InvalidLabels(gettext("labels must be a list of {criterion, hit, note?}"))
    parsed: dict[str, LabelValue] = {}
    for index, entry in enumerate(raw):
        where = f"labels[{index}]"
        if not isinstance(entry, Mapping):
            raise InvalidLabels(f"{where}: must be an object")
        unknown = set(entry) - {"criterion", "hit", "note", "version"}
        if unknown:
            raise InvalidLabels(f"{where}: unknown field(s) {sorted(unknown)}")
        criterion = entry.get("criterion")
        # A list or an object is no id (and cannot be looked up in a set of them).
        if not isinstance(criterion, str) or criterion not in criteria:
            raise InvalidLabels(f"{where}: {criterion!r} is not a criterion of this assignment")
        if criterion in parsed:
            raise InvalidLabels(f"{where}: criterion {criterion!r} labelled twice")
        hit = entry.get("hit")
        if not (hit is None or isinstance(hit, bool)):
            raise InvalidLabels(f"{where}: hit must be true or false")
        if complete and hit is None:
            raise InvalidLabels(f"{where}: hit must be true or false")
        note = entry.get("note") or ""
        if not isinstance(note, str) or len(note) > MAX_NOTE_CHARS:
            raise InvalidLabels(
                gettext("%(where)s: a note is text of at most %(max)d characters")
                % {"where": where, "max": MAX_NOTE_CHARS}
            )
        version = entry.get("version")
        if version is not None and (
            isinstance(version, bool) or not isinstance(version, int) or version < 1
        ):
            raise InvalidLabels(f"{where}: version must be a positive whole number")
        parsed[criterion] = LabelValue(hit=hit, note=note, version=version)
    if complete:
        missing = len(set(criteria) - set(parsed))
        if missing:
            raise InvalidLabels(
                gettext("%(n)d criteria have no label; every criterion needs one") % {"n": missing}
            )
    return parsed


def label_versions(
    labels: Mapping[int, LabelValue], *, current: Mapping[int, int]
) -> dict[int, int]:
    """The rubric version each label was made on: the one the workbench showed the expert
    (a criterion edited while the expert held the unit keeps its label on the old text, and
    reports flag it), or the criterion's current version when the client does not say.
    A version the criterion never had is refused."""
    versions = {}
    for item_id, value in labels.items():
        latest = current[item_id]
        if value.version is not None and value.version > latest:
            raise InvalidLabels(f"criterion version {value.version} does not exist yet")
        versions[item_id] = latest if value.version is None else value.version
    return versions
