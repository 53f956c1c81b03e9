"""The construction report of a benchmark built with experts, from plain inputs (no ORM).

The benchmark half: the funnel of draft cases per stage with the reasons drafts and criteria
left it, the discrimination of the criteria before and after the quality-control round, and
the hard share, and the judge's agreement with the rubric authors' mock-scores (the
self-validation tier: every submitted label beside the judge's verdict on the same criterion at
the same version, ``annotation.selectors.selfcheck.mock_score_pairs``): n, agreement and
Cohen's κ with 95 % intervals from a bootstrap over drafts (a draft's criteria and responses
are correlated; with one draft the interval is withheld, with the reason), and the agreement
among the reviewers of the rubrics (the cross-validation tier, computed by its owner,
``annotation.selectors.construction.construction_review_summary``: the share of reviewed
criteria every reviewer called clear and Krippendorff's α over the five verdicts).

Funnel stages, each counting the drafts that reached it:

* ``imported``: every draft;
* ``rewritten``: drafts with an LLM rewrite (optional: not a gate, the seed dialogue serves);
* ``with_rubric``: drafts with at least one criterion, whatever became of it;
* ``quality_control``: of those, the drafts not removed as too easy;
* ``difficulty_marked``: of those, the drafts with a difficulty decision;
* ``accepted``: drafts the senior panel accepted (published ones included);
* ``published``: drafts in the published version.

Discrimination is the saturation analysis's (``benchmark.saturation``: point-biserial across
the models). *Before* is the mean over every criterion of the first pruned snapshot; *after* is
the mean, on the same verdicts, over the criteria that survived: those of the latest published
version, else those still active on a draft in the funnel. A criterion whose discrimination is
undefined (every model or none hit it) counts in neither mean; ``criteria`` says how many did.
"""

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

from validation.statistics.pairwise import pairwise_agreement
from validation.statistics.results import BootstrapSettings

STAGES = (
    "imported",
    "rewritten",
    "with_rubric",
    "quality_control",
    "difficulty_marked",
    "accepted",
    "published",
)
TOO_EASY = "too_easy"


@dataclass(frozen=True)
class DraftFact:
    question_id: str
    status: str  # active | removed | accepted | published
    rewritten: bool
    criteria: int  # criteria ever written for it
    difficulty: str = ""
    removed_stage: str = ""
    removed_reason: str = ""


@dataclass(frozen=True)
class CriterionFact:
    id: int
    question_id: str
    status: str  # active | removed
    removed_stage: str = ""
    removed_reason: str = ""


@dataclass(frozen=True)
class Round:
    """A snapshot: its purpose, the saturation analysis prune stored ({} if not pruned), and
    the draft criterion id of each (question id, rubric position) it froze."""

    dataset: str
    purpose: str  # quality | published
    cases: int
    saturation: Mapping = field(default_factory=dict)
    proposed_hard: Sequence[str] = ()
    criteria: Mapping[tuple[str, int], int] = field(default_factory=dict)


class MockPair(NamedTuple):
    """An author's submitted mock score and the judge's verdict on the same item."""

    draft: str
    author_met: bool
    judge_met: bool


@dataclass(frozen=True)
class ConstructionInputs:
    project: str
    dataset_name: str
    drafts: Sequence[DraftFact]
    criteria: Sequence[CriterionFact]
    rounds: Sequence[Round]  # oldest first
    mock_scores: Sequence[MockPair] = ()
    bootstrap: BootstrapSettings = field(default_factory=BootstrapSettings)
    # The cross-validation tier's figures, as its owner computed them (``None``: no review).
    rubric_agreement: Mapping | None = None


def _rubric_agreement(summary: Mapping | None) -> dict:
    if not summary or not summary.get("reviewed"):
        return {"status": "no_reviews", "reviewed": 0}
    return {"status": "computed", **summary}


def _judge_vs_authors(pairs: Sequence[MockPair], bootstrap: BootstrapSettings) -> dict:
    if not pairs:
        return {"status": "no_pairs", "n": 0}
    drafts = sorted({pair.draft for pair in pairs})
    cluster = {draft: index for index, draft in enumerate(drafts)}
    result = pairwise_agreement(
        reference=[int(pair.author_met) for pair in pairs],
        predicted=[int(pair.judge_met) for pair in pairs],
        categories=(0, 1),
        clusters=[cluster[pair.draft] for pair in pairs],
        bootstrap=bootstrap,
    )
    return {
        "status": "computed",
        "n": result.n,
        "drafts": len(drafts),
        "agreement": result.agreement.as_dict(),
        "cohen_kappa": result.cohen_kappa.as_dict(),
    }


def _removals(rows, *, unit: str) -> list[dict]:
    """Removed rows grouped by stage, most frequent first, each with its reasons."""
    by_stage: dict[str, list[dict]] = {}
    for row in rows:
        if row.status == "removed":
            by_stage.setdefault(row.removed_stage, []).append(
                {"question_id": row.question_id, "reason": row.removed_reason}
            )
    return [
        {"stage": stage, unit: len(found), "reasons": found}
        for stage, found in sorted(by_stage.items(), key=lambda kv: (-len(kv[1]), kv[0]))
    ]


def funnel_compute(drafts: Sequence[DraftFact]) -> list[dict]:
    """Each stage with the drafts that reached it and the share of the imported ones."""
    reached = {
        "imported": list(drafts),
        "rewritten": [d for d in drafts if d.rewritten],
        "with_rubric": [d for d in drafts if d.criteria],
    }
    reached["quality_control"] = [d for d in reached["with_rubric"] if d.removed_stage != TOO_EASY]
    reached["difficulty_marked"] = [d for d in reached["quality_control"] if d.difficulty]
    reached["accepted"] = [d for d in drafts if d.status in ("accepted", "published")]
    reached["published"] = [d for d in drafts if d.status == "published"]
    total = len(drafts)
    return [
        {
            "stage": stage,
            "drafts": len(reached[stage]),
            "share": len(reached[stage]) / total if total else None,
        }
        for stage in STAGES
    ]


def _mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None


def _discrimination(inputs: ConstructionInputs) -> dict:
    analysed = [r for r in inputs.rounds if r.saturation]
    if not analysed:
        return {"measure": "point-biserial", "before": None, "after": None}
    first = analysed[0]
    published = [r for r in inputs.rounds if r.purpose == "published"]
    removed = {d.question_id for d in inputs.drafts if d.status == "removed"}
    if published:
        kept = set(published[-1].criteria.values())
    else:
        kept = {c.id for c in inputs.criteria if c.status == "active"}
        kept -= {c.id for c in inputs.criteria if c.question_id in removed}
    rows = [
        (first.criteria.get((c["question_id"], c["position"])), c["discrimination"])
        for c in first.saturation.get("criteria", [])
    ]
    every = [value for _, value in rows if value is not None]
    after = [value for pk, value in rows if value is not None and pk in kept]
    summary = first.saturation.get("summary", {})
    return {
        "measure": "point-biserial",
        "dataset": first.dataset,
        "judge": first.saturation.get("judge"),
        "models": summary.get("models", []),
        "before": {"mean": _mean(every), "criteria": len(every), "of": len(rows)},
        "after": {
            "mean": _mean(after),
            "criteria": len(after),
            "of": sum(pk in kept for pk, _ in rows),
            "kept_from": "published" if published else "active",
        },
    }


def _hard(inputs: ConstructionInputs) -> dict:
    published = [d for d in inputs.drafts if d.status == "published"]
    marked = [d for d in inputs.drafts if d.difficulty]
    pruned = [r for r in inputs.rounds if r.saturation]
    proposed = (
        {
            "dataset": pruned[-1].dataset,
            "cases": pruned[-1].cases,
            "proposed": len(pruned[-1].proposed_hard),
        }
        if pruned
        else None
    )

    def share(rows):
        hard = sum(d.difficulty == "hard" for d in rows)
        return {"hard": hard, "of": len(rows), "share": hard / len(rows) if rows else None}

    return {"published": share(published), "marked": share(marked), "proposed": proposed}


def construction_report_compute(inputs: ConstructionInputs) -> dict:
    """The report as plain data (docs/formats.md, "Construction report")."""
    statuses = Counter(d.status for d in inputs.drafts)
    criteria_status = Counter(c.status for c in inputs.criteria)
    published = [r for r in inputs.rounds if r.purpose == "published"]
    return {
        "project": inputs.project,
        "dataset_name": inputs.dataset_name,
        "published": [r.dataset for r in published],
        "drafts": {
            status: statuses.get(status, 0)
            for status in ("active", "removed", "accepted", "published")
        },
        "funnel": funnel_compute(inputs.drafts),
        "removed_drafts": _removals(inputs.drafts, unit="drafts"),
        "criteria": {
            "written": len(inputs.criteria),
            "active": criteria_status.get("active", 0),
            "removed": criteria_status.get("removed", 0),
            "published": len(published[-1].criteria) if published else 0,
        },
        "removed_criteria": _removals(inputs.criteria, unit="criteria"),
        "rounds": [
            {
                "dataset": r.dataset,
                "purpose": r.purpose,
                "cases": r.cases,
                "criteria": len(r.criteria),
                "pruned": bool(r.saturation),
            }
            for r in inputs.rounds
        ],
        "discrimination": _discrimination(inputs),
        "hard": _hard(inputs),
        "rubric_agreement": _rubric_agreement(inputs.rubric_agreement),
        "judge_vs_authors": _judge_vs_authors(inputs.mock_scores, inputs.bootstrap),
    }
