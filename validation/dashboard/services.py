"""Writes the dashboard's alerts lead to on the validation side."""

from datetime import date

from django.db import transaction

from benchmark.services.audit import audit_record
from config.locks import row_lock
from validation.audit_actions import ValidationAction
from validation.models import Study


def study_set_due_date(*, study: Study, due_date: date | None, actor) -> Study:
    """Move (or clear) the date a study should close by; one audit row with old and new."""
    with transaction.atomic():
        study = row_lock(Study, study.pk)
        before = study.due_date
        study.due_date = due_date
        study.save(update_fields=["due_date"])
        audit_record(
            actor=actor,
            action=ValidationAction.STUDY_DUE_DATE,
            obj=study,
            data={
                "from": before.isoformat() if before else None,
                "to": due_date.isoformat() if due_date else None,
            },
        )
    return study
