"""The construction report's inputs: benchmark's drafts, criteria and snapshots through its
selectors; the expert tiers' data through annotation's (the authors' mock-scores beside the
judge's verdicts, and the reviewers' verdicts on the criteria)."""

from collections import Counter

from annotation.selectors.construction import construction_review_summary
from annotation.selectors.selfcheck import mock_score_pairs
from benchmark.models import ConstructionProject
from benchmark.selectors.construction import (
    project_criterion_rows,
    project_draft_rows,
    project_snapshot_rows,
)
from validation.construction.compute import (
    ConstructionInputs,
    CriterionFact,
    DraftFact,
    MockPair,
    Round,
)


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
        rubric_agreement=construction_review_summary(project=project),
        mock_scores=[
            MockPair(pair.draft, pair.author_met, pair.judge_met)
            for pair in mock_score_pairs(project=project)
        ],
    )
