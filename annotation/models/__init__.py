"""Models of the annotation app, one module per concern; import them from here."""

from annotation.models.calibration import (
    CalibrationAttempt,
    CalibrationSet,
    Certificate,
    CertificationBar,
    ReferenceLabel,
    certificate_serial,
)
from annotation.models.construction import (
    ConstructionTask,
    ConstructionWork,
    CriterionReview,
    DifficultyMark,
    PanelRound,
    PanelRule,
    PanelVote,
    TaskKind,
)
from annotation.models.core import (
    ACTIVE,
    MAX_RATERS,
    Assignment,
    Expert,
    Label,
    PeerAgreement,
    Pool,
    PoolTally,
    Submission,
    Unit,
    could_name_a_study,
    rater_pseudonym,
    unit_token,
)
from annotation.models.knowledge import Comment, CommentVote, FaqEntry, LibraryEntry
from annotation.models.pay import PayEntry, PayRate
from annotation.models.review import ReviewFlag, SubmissionVersion
from annotation.models.selfcheck import MockScore

__all__ = [
    "ACTIVE",
    "MAX_RATERS",
    "Assignment",
    "CalibrationAttempt",
    "CalibrationSet",
    "Certificate",
    "CertificationBar",
    "Comment",
    "CommentVote",
    "ConstructionTask",
    "ConstructionWork",
    "CriterionReview",
    "DifficultyMark",
    "Expert",
    "FaqEntry",
    "Label",
    "LibraryEntry",
    "MockScore",
    "PanelRound",
    "PanelRule",
    "PanelVote",
    "PayEntry",
    "PayRate",
    "PeerAgreement",
    "Pool",
    "PoolTally",
    "ReferenceLabel",
    "ReviewFlag",
    "Submission",
    "SubmissionVersion",
    "TaskKind",
    "Unit",
    "certificate_serial",
    "could_name_a_study",
    "rater_pseudonym",
    "unit_token",
]
