"""Writing an ability's absolute standard: every change is a new numbered version.

Who may write is not this app's rule: senior experts are annotation's, which benchmark does
not import. The web page checks the expert's tier (``frontend.views.standards``); the admin
is for staff; this service records whoever the caller says wrote it.
"""

from django.db import transaction
from django.utils.translation import gettext as _

from benchmark.audit_actions import BenchmarkAction
from benchmark.models import AbsoluteStandard, AbsoluteStandardVersion
from benchmark.services.audit import audit_record
from benchmark.taxonomy import SCORED_CODES


class StandardError(ValueError):
    """The change is refused: no author, no text, no reason for a revision, or nothing changed."""


def standard_write(*, ability: str, text: str, author, reason: str = "") -> AbsoluteStandardVersion:
    """Write the first text of an ability's standard, or revise it as version n+1.

    A revision needs a reason; one that changes nothing is refused. The standard's row is
    locked for the change, so two concurrent revisions get n+1 and n+2 in turn. Writes an
    audit row with the text before and after.
    """
    if ability not in SCORED_CODES:
        raise StandardError(_("Unknown ability."))
    if author is None:
        raise StandardError(_("A standard needs an author."))
    text, reason = (text or "").strip(), (reason or "").strip()
    if not text:
        raise StandardError(_("The text of a standard must not be empty."))
    with transaction.atomic():
        standard = AbsoluteStandard.objects.select_for_update().filter(ability=ability).first()
        before = standard.text if standard else None
        if standard is None:
            standard = AbsoluteStandard.objects.create(ability=ability, text=text, version=1)
        else:
            if not reason:
                raise StandardError(_("Give a reason for the change."))
            if text == standard.text:
                raise StandardError(_("Nothing changed: the text is the same."))
            standard.text, standard.version = text, standard.version + 1
            standard.save(update_fields=["text", "version", "updated_at"])
        version = AbsoluteStandardVersion.objects.create(
            standard=standard, number=standard.version, text=text, author=author, reason=reason
        )
        audit_record(
            actor=author,
            action=BenchmarkAction.ABSOLUTE_STANDARD_EDIT,
            obj=standard,
            data={
                "ability": ability,
                "version": version.number,
                "reason": reason,
                "text_before": before,
                "text_after": text,
            },
        )
    return version
