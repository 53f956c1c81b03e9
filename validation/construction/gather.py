"""The construction report's inputs, read through benchmark's selectors.

EXTENSION POINTS, for the expert tiers (annotation's data, not written yet):
``rubric_agreement_gather`` and ``judge_vs_authors_gather`` return None, which the report
prints as "pending". When annotation's selectors exist, each returns the section as a dict
(the figure, its n and how it was computed, documented in docs/formats.md) and the report
prints it; nothing else changes.
"""

from collections import Counter

from benchmark.models import ConstructionProject
from benchmark.selectors.construction import (
    project_criterion_rows,
    project_draft_rows,
    project_snapshot_rows,
)
from validation.construction.compute import ConstructionInputs, CriterionFact, DraftFact, Round


def rubric_agreement_gather(*, project: ConstructionProject) -> dict | None:
    """EXTENSION POINT: agreement among the reviewers of the project's rubrics
    (cross-validation tier: clear / ambiguous / not binary / wrong ability / redundant)."""
    return None


def judge_vs_authors_gather(*, project: ConstructionProject) -> dict | None:
    """EXTENSION POINT: the judge's agreement with the rubric authors' mock-scores
    (self-validation tier)."""
    return None


def construction_inputs(*, project: ConstructionProject) -> ConstructionInputs:
    criteria = [
        CriterionFact(
            id=row["id"],
            question_id=row["draft__question_id"],
            status=row["status"],
            removed_stage=row["removed_stage"],
            removed_reason=row["removed_reason"],
        )
        for row in project_criterion_rows(project=project)
    ]
    written = Counter(c.question_id for c in criteria)
    drafts = [
        DraftFact(
            question_id=row["question_id"],
            status=row["status"],
            rewritten=row["rewritten"],
            criteria=written[row["question_id"]],
            difficulty=row["difficulty"],
            removed_stage=row["removed_stage"],
            removed_reason=row["removed_reason"],
        )
        for row in project_draft_rows(project=project)
    ]
    return ConstructionInputs(
        project=project.name,
        dataset_name=project.dataset_name,
        drafts=drafts,
        criteria=criteria,
        rounds=[Round(**row) for row in project_snapshot_rows(project=project)],
        rubric_agreement=rubric_agreement_gather(project=project),
        judge_vs_authors=judge_vs_authors_gather(project=project),
    )
