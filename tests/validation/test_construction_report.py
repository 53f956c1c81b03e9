"""The construction report: the pure computation on hand-built inputs, then the command on a
project taken through snapshot, prune and publish."""

import io
import json

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from benchmark.services.construction import project_create
from tests.builders.construction import built
from tests.builders.schemas import schema_validator
from validation.construction.compute import (
    ConstructionInputs,
    CriterionFact,
    DraftFact,
    MockPair,
    Round,
    construction_report_compute,
)
from validation.statistics.results import BootstrapSettings

ANALYSIS = {
    "judge": "j",
    "criteria": [
        {"question_id": "a", "position": 0, "discrimination": None},  # saturated
        {"question_id": "a", "position": 1, "discrimination": 0.2},
        {"question_id": "b", "position": 0, "discrimination": 0.8},
        {"question_id": "c", "position": 0, "discrimination": -0.4},  # its draft too easy
    ],
    "summary": {"models": ["m1", "m2", "m3"]},
}


def inputs(**changes) -> ConstructionInputs:
    base = {
        "project": "pilot",
        "dataset_name": "hb",
        "drafts": [
            DraftFact("a", "published", rewritten=True, criteria=2, difficulty="hard"),
            DraftFact("b", "accepted", rewritten=False, criteria=1, difficulty="normal"),
            DraftFact("c", "removed", True, 1, removed_stage="too_easy", removed_reason="m 90"),
            DraftFact("d", "removed", True, 0, removed_stage="rejected", removed_reason="vague"),
            DraftFact("e", "removed", True, 0, removed_stage="too_easy", removed_reason="m 85"),
        ],
        "criteria": [
            CriterionFact(1, "a", "removed", "saturated", "hit by every model"),
            CriterionFact(2, "a", "active"),
            CriterionFact(3, "b", "active"),
            CriterionFact(4, "c", "active"),
        ],
        "rounds": [
            Round(
                "hb-draft v1",
                "quality",
                3,
                ANALYSIS,
                ["b"],
                {("a", 0): 1, ("a", 1): 2, ("b", 0): 3, ("c", 0): 4},
            ),
            Round("hb v1", "published", 1, {}, [], {("a", 0): 2}),
        ],
    }
    return ConstructionInputs(**{**base, **changes})


def test_the_funnel_counts_each_stage_and_groups_removals_with_their_reasons():
    report = construction_report_compute(inputs())
    assert [(row["stage"], row["drafts"]) for row in report["funnel"]] == [
        ("imported", 5), ("rewritten", 4), ("with_rubric", 3), ("quality_control", 2),
        ("difficulty_marked", 2), ("accepted", 2), ("published", 1),
    ]  # fmt: skip
    assert report["funnel"][-1]["share"] == pytest.approx(0.2)
    assert report["removed_drafts"] == [
        {"stage": "too_easy", "drafts": 2, "reasons": [
            {"question_id": "c", "reason": "m 90"}, {"question_id": "e", "reason": "m 85"}]},
        {"stage": "rejected", "drafts": 1, "reasons": [{"question_id": "d", "reason": "vague"}]},
    ]  # fmt: skip
    assert report["criteria"] == {"written": 4, "active": 3, "removed": 1, "published": 1}
    assert report["removed_criteria"][0]["stage"] == "saturated"
    assert report["drafts"] == {"active": 0, "removed": 3, "accepted": 1, "published": 1}
    schema_validator("construction-report").validate(report)


def test_discrimination_after_keeps_the_published_criteria_else_the_active_ones():
    report = construction_report_compute(inputs())
    d = report["discrimination"]
    assert d["before"] == {"mean": pytest.approx((0.2 + 0.8 - 0.4) / 3), "criteria": 3, "of": 4}
    assert d["after"] == {"mean": pytest.approx(0.2), "criteria": 1, "of": 1,
                          "kept_from": "published"}  # fmt: skip
    assert (d["judge"], d["models"]) == ("j", ["m1", "m2", "m3"])
    unpublished = construction_report_compute(inputs(rounds=inputs().rounds[:1]))
    # Active criteria 2, 3 (4 is active but its draft was removed as too easy).
    assert unpublished["discrimination"]["after"]["mean"] == pytest.approx(0.5)
    assert unpublished["discrimination"]["after"]["kept_from"] == "active"


def test_hard_shares_and_the_extension_points():
    report = construction_report_compute(inputs())
    assert report["hard"]["published"] == {"hard": 1, "of": 1, "share": 1.0}
    assert report["hard"]["marked"] == {"hard": 1, "of": 2, "share": 0.5}
    assert report["hard"]["proposed"] == {"dataset": "hb-draft v1", "cases": 3, "proposed": 1}
    assert report["rubric_agreement"] == {"status": "no_reviews", "reviewed": 0}
    summary = {"criteria": [{"question_id": "a", "position": 0, "verdicts": {"clear": 2},
                             "all_clear": True}],
               "reviewed": 1, "all_clear_share": 1.0, "krippendorff_alpha": None}  # fmt: skip
    reviewed = construction_report_compute(inputs(rubric_agreement=summary))
    assert reviewed["rubric_agreement"] == {"status": "computed", **summary}
    schema_validator("construction-report").validate(reviewed)
    assert report["judge_vs_authors"] == {"status": "no_pairs", "n": 0}


def test_the_judge_against_the_authors_mock_scores_is_clustered_by_draft():
    # (author, judge): (T,T) (F,T) (T,F) (T,T) (F,F) on draft a, and the same on draft b.
    marks = [(True, True), (False, True), (True, False), (True, True), (False, False)]
    pairs = [MockPair(d, a, j) for d in ("a", "b") for a, j in marks]
    report = construction_report_compute(
        inputs(mock_scores=pairs, bootstrap=BootstrapSettings(resamples=200))
    )
    section = report["judge_vs_authors"]
    assert (section["status"], section["n"], section["drafts"]) == ("computed", 10, 2)
    # p_o = 3/5; both say "met" 3/5 of the time: p_e = .6·.6 + .4·.4 = .52; κ = .08/.48.
    assert section["agreement"]["value"] == pytest.approx(0.6)
    assert section["cohen_kappa"]["value"] == pytest.approx(0.08 / 0.48)
    # Two identical drafts: every resample is the same point, and a proportion's interval
    # never has zero width (issue 42): Clopper–Pearson on 6/10 (deff 1: the drafts do not
    # vary), [0.2624, 0.8784] as scipy.stats.binomtest(6, 10).proportion_ci() gives.
    ci = section["agreement"]["ci95"]
    assert (round(ci["low"], 4), round(ci["high"], 4), ci["method"]) == (
        0.2624,
        0.8784,
        "clopper-pearson",
    )
    assert section["agreement"]["ci95"]["clusters"] == 2
    schema_validator("construction-report").validate(report)


def test_an_empty_project_reports_zeros_not_errors():
    report = construction_report_compute(inputs(drafts=[], criteria=[], rounds=[]))
    assert all(row["drafts"] == 0 and row["share"] is None for row in report["funnel"])
    assert report["discrimination"]["before"] is None
    assert report["hard"]["proposed"] is None
    schema_validator("construction-report").validate(report)


@pytest.fixture
def project():
    return project_create(name="pilot", dataset_name="heartbench-pilot")


@pytest.mark.django_db
def test_the_command_refuses_an_unknown_project_and_a_missing_directory(project, tmp_path):
    with pytest.raises(CommandError, match="no construction project named 'nope'"):
        call_command("construct_report", "--project", "nope")
    with pytest.raises(CommandError, match="is not a directory"):
        call_command("construct_report", "--project", "pilot", "--out", str(tmp_path / "x/r"))
    assert list(tmp_path.iterdir()) == []


@pytest.mark.django_db
def test_the_command_reports_a_pruned_and_published_project(project):
    built(project)
    out = io.StringIO()
    call_command("construct_report", "--project", "pilot", stdout=out)
    report = json.loads(out.getvalue())
    schema_validator("construction-report").validate(report)
    assert [row["drafts"] for row in report["funnel"]] == [3, 0, 3, 2, 2, 2, 2]
    assert report["removed_drafts"][0]["stage"] == "too_easy"
    assert report["criteria"] == {"written": 12, "active": 9, "removed": 3, "published": 8}
    assert report["published"] == ["heartbench-pilot v1"]
    assert report["hard"]["published"] == {"hard": 1, "of": 2, "share": 0.5}
    assert report["hard"]["proposed"]["proposed"] == 1
    assert report["discrimination"]["before"]["of"] == 9
    assert report["discrimination"]["after"]["kept_from"] == "published"
