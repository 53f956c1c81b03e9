"""Writes of the validation app. Import services from here; the modules split them by concern:
``studies`` (creating and opening a study), ``settle`` (a unit's outcome applied: the senior
queue and the golden standard) and ``lifecycle`` (enrolling experts, closing or extending,
deleting)."""

from validation.services.lifecycle import (
    Enrolment,
    study_check_closable,
    study_close,
    study_delete,
    study_delete_refusal,
    study_enrol,
    study_extend,
    study_stop_early,
)
from validation.services.settle import study_settle, study_units_to_senior, unit_settle
from validation.services.studies import (
    STRATUM_FIELDS,
    StudyError,
    study_create,
    study_create_named,
    study_open,
    study_set_adjudicate_splits,
    study_set_gate,
)

__all__ = [
    "STRATUM_FIELDS",
    "Enrolment",
    "StudyError",
    "study_check_closable",
    "study_close",
    "study_create",
    "study_create_named",
    "study_delete",
    "study_delete_refusal",
    "study_enrol",
    "study_extend",
    "study_open",
    "study_set_adjudicate_splits",
    "study_set_gate",
    "study_settle",
    "study_stop_early",
    "study_units_to_senior",
    "unit_settle",
]
