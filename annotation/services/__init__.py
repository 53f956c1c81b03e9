"""Writes of the annotation app. Import services from here; the modules split them by concern:
``core`` (experts, pools, leases, drafts), ``claims`` (the next-unit claim), ``submissions``
(recording a rating, a calibration sitting or a senior's decision),
``calibration``, ``certificates``, ``pay``, ``adjudication`` (the senior queue), ``knowledge``
(discussion threads, votes, moderation), ``review`` (revising and flagging submitted work) and
``routing`` (an admin's manual routing,
recalibration and deactivation); ``inserts`` (rows written without a model instance each)."""

from annotation.labels import InvalidLabels
from annotation.services.adjudication import adjudication_claim_next, unit_queue_adjudication
from annotation.services.calibration import (
    calibration_claim_next,
    calibration_create,
    calibration_finish_if_complete,
    pool_set_quality_policy,
)
from annotation.services.certificates import (
    certificate_issue,
    certificate_issue_all,
    certificate_shortfall,
)
from annotation.services.claims import (
    Claim,
    assignment_claim_next,
    assignment_claim_next_in_study,
    assignment_claim_next_with_state,
)
from annotation.services.core import (
    assignment_autosave,
    assignment_reassign,
    assignment_renew,
    expert_create,
    leases_expire,
    pool_create,
    pool_delete,
    pool_enrol_experts,
    pool_set_status,
    units_mark_for_adjudication,
)
from annotation.services.errors import AnnotationError, LeaseLost, PoolBusy, SubmissionConflict
from annotation.services.inserts import rows_insert
from annotation.services.knowledge import (
    KnowledgeError,
    comment_post,
    comment_set_hidden,
    comment_vote,
    knowledge_demo_load,
)
from annotation.services.pay import pay_correct, pay_rate_set, pay_record_earning
from annotation.services.review import flag_answer, submission_flag, submission_revise
from annotation.services.routing import (
    expert_require_recalibration,
    expert_set_active,
    unit_route_to_expert,
)
from annotation.services.submissions import (
    adjudication_submit,
    assignment_submit,
    pairwise_choice_submit,
)

__all__ = [
    "AnnotationError",
    "Claim",
    "InvalidLabels",
    "KnowledgeError",
    "LeaseLost",
    "PoolBusy",
    "SubmissionConflict",
    "adjudication_claim_next",
    "adjudication_submit",
    "assignment_autosave",
    "assignment_claim_next",
    "assignment_claim_next_in_study",
    "assignment_claim_next_with_state",
    "assignment_reassign",
    "assignment_renew",
    "assignment_submit",
    "calibration_claim_next",
    "calibration_create",
    "calibration_finish_if_complete",
    "certificate_issue",
    "certificate_issue_all",
    "certificate_shortfall",
    "comment_post",
    "comment_set_hidden",
    "comment_vote",
    "expert_create",
    "expert_require_recalibration",
    "expert_set_active",
    "flag_answer",
    "knowledge_demo_load",
    "leases_expire",
    "pairwise_choice_submit",
    "pay_correct",
    "pay_rate_set",
    "pay_record_earning",
    "pool_create",
    "pool_delete",
    "pool_enrol_experts",
    "pool_set_quality_policy",
    "pool_set_status",
    "rows_insert",
    "submission_flag",
    "submission_revise",
    "unit_queue_adjudication",
    "unit_route_to_expert",
    "units_mark_for_adjudication",
]
