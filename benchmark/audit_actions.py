"""The audit actions of the benchmark app, and the base every app's enumeration extends.

Each app names its own actions in its ``audit_actions.py`` (``annotation.audit_actions``,
``validation.audit_actions``), as members of a subclass of ``AuditActions``; an audit row
names one of them, and ``benchmark.services.audit`` refuses anything else. Values are
"<object>.<what happened>", as stored in ``AuditEvent.action`` and filtered in the admin,
and no two apps share one (tests/benchmark/test_audit_actions.py).
"""

from enum import StrEnum


class AuditActions(StrEnum):
    """The base of every app's enumeration of audit actions."""

    @classmethod
    def named(cls, value: str) -> "AuditActions":
        """The member of any app's enumeration with this value; ValueError when none has it."""
        for actions in cls.__subclasses__():
            try:
                return actions(value)
            except ValueError:
                continue
        raise ValueError(f"{value!r} is not an audit action of any app")


class BenchmarkAction(AuditActions):
    ABSOLUTE_STANDARD_EDIT = "absolute_standard.edit"
    ANSWERS_IMPORT = "answers.import"
    CONSTRUCTION_PROJECT_CREATE = "construction_project.create"
    CONSTRUCTION_SNAPSHOT_CREATE = "construction_snapshot.create"
    CONSTRUCTION_SNAPSHOT_PRUNE = "construction_snapshot.prune"
    DATASET_IMPORT = "dataset.import"
    DRAFT_ACCEPT = "draft.accept"
    DRAFT_AUTHOR = "draft.author"
    DRAFT_CRITERION_ADD = "draft_criterion.add"
    DRAFT_CRITERION_REMOVE = "draft_criterion.remove"
    DRAFT_CRITERION_REVISE = "draft_criterion.revise"
    DRAFT_DIFFICULTY = "draft.difficulty"
    DRAFT_PUBLISH = "draft.publish"
    DRAFT_REFERENCE_RESPONSE = "draft.reference_response"
    DRAFT_REMOVE = "draft.remove"
    DRAFT_REWRITE = "draft.rewrite"
    DRAFTS_IMPORT = "drafts.import"
    JUDGE_RUN_ENSEMBLE = "judge_run.ensemble"
    JUDGE_RUN_RETRY_ERRORS = "judge_run.retry_errors"
    RUBRIC_EDIT = "rubric.edit"
    VERDICTS_IMPORT = "verdicts.import"
