"""The benchmark app's models: the benchmark itself (``core``) and the construction of new
ones (``construction``)."""

from benchmark.models.construction import (
    AbsoluteStandard,
    AbsoluteStandardVersion,
    ConstructionProject,
    DraftCase,
    DraftResponse,
    ReferenceRun,
    RewriteRun,
)
from benchmark.models.core import (
    ABILITY_CHOICES,
    AuditEvent,
    Case,
    Dataset,
    Difficulty,
    GenerationRun,
    Judge,
    JudgeRun,
    LLMCacheEntry,
    LLMRun,
    ModelUnderTest,
    Response,
    RubricItem,
    RubricItemVersion,
    Verdict,
)

__all__ = [
    "ABILITY_CHOICES",
    "AbsoluteStandard",
    "AbsoluteStandardVersion",
    "AuditEvent",
    "Case",
    "ConstructionProject",
    "Dataset",
    "Difficulty",
    "DraftCase",
    "DraftResponse",
    "GenerationRun",
    "Judge",
    "JudgeRun",
    "LLMCacheEntry",
    "LLMRun",
    "ModelUnderTest",
    "ReferenceRun",
    "Response",
    "RewriteRun",
    "RubricItem",
    "RubricItemVersion",
    "Verdict",
]
