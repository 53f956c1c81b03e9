"""The audit actions of the validation app (the base and the rule: ``benchmark.audit_actions``)."""

from benchmark.audit_actions import AuditActions


class ValidationAction(AuditActions):
    ADJUDICATION_DECIDE = "adjudication.decide"
    DEMO_REMOVE = "demo.remove"
    STUDY_ADJUDICATE_SPLITS = "study.adjudicate_splits"
    STUDY_CLOSE = "study.close"
    STUDY_CREATE = "study.create"
    STUDY_DELETE = "study.delete"
    STUDY_DUE_DATE = "study.due_date"
    STUDY_ENROL = "study.enrol"
    STUDY_JUDGES_ADD = "study.judges_add"
    STUDY_GATE = "study.gate"
    STUDY_OPEN = "study.open"
    STUDY_UNIT_AWAIT_ADJUDICATION = "study_unit.await_adjudication"
