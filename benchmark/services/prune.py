"""The quality-control round (the paper's §3): after a quality snapshot is judged on several
models, its saturated criteria and too-easy drafts leave the funnel, each with its reason, and
the cases the models do worst on are proposed to the difficulty tier.

The analysis is ``benchmark.saturation``'s; this service only maps its findings back to the
drafts and removes them through ``benchmark.services.criteria`` (audited, with a stage and a
reason). A finding whose draft criterion was revised or removed since the snapshot, or whose
draft left the funnel, is not acted on: it is listed in ``skipped`` with why.
"""

from dataclasses import dataclass, field

from django.contrib.auth.base_user import AbstractBaseUser
from django.db import transaction

from benchmark.audit_actions import BenchmarkAction
from benchmark.models import ConstructionSnapshot, DraftCase, DraftCriterion, DraftStatus
from benchmark.models.construction import SNAPSHOT_QUALITY
from benchmark.saturation import Saturation
from benchmark.services.audit import audit_record
from benchmark.services.criteria import draft_case_remove, draft_criterion_remove

SATURATED = "saturated"
TOO_EASY = "too_easy"


class PruneError(ValueError):
    """The snapshot cannot be pruned as asked."""


@dataclass
class PrunePlan:
    """What the analysis removes, with the reasons, and what it proposes as hard."""

    criteria: list[tuple[DraftCriterion, str]] = field(default_factory=list)
    drafts: list[tuple[DraftCase, str]] = field(default_factory=list)
    proposed_hard: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)


def _who(analysis: Saturation, *, judge: str, snapshot: ConstructionSnapshot) -> str:
    return f"models {', '.join(analysis.models)}, judge {judge}, on {snapshot.dataset}"


def prune_plan(*, snapshot: ConstructionSnapshot, analysis: Saturation, judge: str) -> PrunePlan:
    """The removals ``analysis`` (computed on ``snapshot``'s dataset) calls for; reads only."""
    if snapshot.purpose != SNAPSHOT_QUALITY:
        raise PruneError(f"{snapshot.dataset} is a {snapshot.purpose} version, not a snapshot")
    plan = PrunePlan()
    who = _who(analysis, judge=judge, snapshot=snapshot)
    sources = {
        (row.rubric_item.case.question_id, row.rubric_item.position): row
        for row in snapshot.criteria.select_related("rubric_item__case", "criterion")
    }
    for stat in analysis.criteria:
        if not stat.saturated:
            continue
        row = sources[stat.question_id, stat.position]
        where = f"{stat.question_id} #{stat.position}"
        if row.criterion.status != DraftCriterion.Status.ACTIVE:
            plan.skipped.append(f"criterion {where}: removed already")
        elif row.criterion.version != row.criterion_version:
            plan.skipped.append(
                f"criterion {where}: revised since the snapshot (v{row.criterion_version} → "
                f"v{row.criterion.version}); judge a new snapshot"
            )
        else:
            plan.criteria.append(
                (row.criterion, f"saturated: hit by every model ({stat.hit_rate:.0%}); {who}")
            )
    drafts = {d.question_id: d for d in snapshot.project.drafts.all()}
    for case in analysis.cases:
        if case.proposed_hard:
            plan.proposed_hard.append(case.question_id)
        if not case.too_easy:
            continue
        draft = drafts[case.question_id]
        if draft.status != DraftStatus.ACTIVE:
            plan.skipped.append(f"draft {draft.question_id}: {draft.get_status_display()}")
            continue
        plan.drafts.append(
            (
                draft,
                f"too easy: mean score {case.mean_score:.1f} > threshold "
                f"{analysis.easy_threshold:g}; {who}",
            )
        )
    return plan


def snapshot_prune(
    *,
    snapshot: ConstructionSnapshot,
    analysis: Saturation,
    judge: str,
    actor: AbstractBaseUser | None = None,
) -> PrunePlan:
    """Carry out ``prune_plan`` in one transaction: remove the saturated criteria (stage
    "saturated") and the too-easy drafts (stage "too_easy"), and keep the analysis and the
    proposed hard cases on the snapshot for the difficulty tier and the report."""
    plan = prune_plan(snapshot=snapshot, analysis=analysis, judge=judge)
    with transaction.atomic():
        for criterion, reason in plan.criteria:
            draft_criterion_remove(criterion=criterion, stage=SATURATED, reason=reason, actor=actor)
        for draft, reason in plan.drafts:
            draft_case_remove(draft=draft, stage=TOO_EASY, reason=reason, actor=actor)
        snapshot.saturation = {**analysis.as_dict(), "judge": judge}
        snapshot.proposed_hard = plan.proposed_hard
        snapshot.save(update_fields=["saturation", "proposed_hard"])
        audit_record(
            actor=actor,
            action=BenchmarkAction.CONSTRUCTION_SNAPSHOT_PRUNE,
            obj=snapshot,
            data={
                "judge": judge,
                "models": list(analysis.models),
                "criteria_removed": len(plan.criteria),
                "drafts_removed": [draft.question_id for draft, _ in plan.drafts],
                "proposed_hard": plan.proposed_hard,
                "skipped": plan.skipped,
            },
        )
    return plan
