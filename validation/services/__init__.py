"""Writes of the validation app. Import services from here; the modules split them by concern:
``studies`` (creating and opening a study), ``gold`` (split routing and the golden standard)
and ``lifecycle`` (enrolling experts, closing or extending, deleting)."""

from validation.services.gold import study_compute_gold, study_route_splits
from validation.services.lifecycle import (
    Enrolment,
    study_check_closable,
    study_close,
    study_delete,
    study_delete_refusal,
    study_enrol,
    study_extend,
)
from validation.services.studies import (
    STRATUM_FIELDS,
    StudyError,
    study_create,
    study_open,
    study_set_adjudicate_splits,
)

__all__ = [
    "STRATUM_FIELDS",
    "Enrolment",
    "StudyError",
    "study_check_closable",
    "study_close",
    "study_compute_gold",
    "study_create",
    "study_delete",
    "study_delete_refusal",
    "study_enrol",
    "study_extend",
    "study_open",
    "study_route_splits",
    "study_set_adjudicate_splits",
]
