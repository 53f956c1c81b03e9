"""Reading and validating the upstream HeartBench files, with no database access.

Three formats share one streaming JSONL reader: datasets (cases with rubrics), answer files
(``question_id`` + ``response``) and scored files (``question_id`` + ``score_detail``). Every
problem is an ``ImportFailure`` naming its line and the reason.
"""

from benchmark.importing.answers import AnswerRow, is_failed_generation, iter_answers
from benchmark.importing.dataset import (
    DIFFICULTIES,
    CaseRecord,
    CriterionRecord,
    DatasetScan,
    DataWarning,
    case_from_object,
    case_warnings,
    dataset_scan,
    difficulty_from_name,
    iter_cases,
)
from benchmark.importing.reader import (
    DEFAULT_MAX_LINE_BYTES,
    ContentHasher,
    ImportFailure,
    read_objects,
)
from benchmark.importing.verdicts import VerdictRow, fit_detail, iter_verdicts, parse_detail

__all__ = [
    "DEFAULT_MAX_LINE_BYTES",
    "DIFFICULTIES",
    "AnswerRow",
    "CaseRecord",
    "ContentHasher",
    "CriterionRecord",
    "DataWarning",
    "DatasetScan",
    "ImportFailure",
    "VerdictRow",
    "case_from_object",
    "case_warnings",
    "dataset_scan",
    "difficulty_from_name",
    "fit_detail",
    "is_failed_generation",
    "iter_answers",
    "iter_cases",
    "iter_verdicts",
    "parse_detail",
    "read_objects",
]
