"""A draft's criteria: added by hand or from a reply, revised as numbered versions, removed
with a stage and a reason; a draft removed, marked normal or hard, accepted. Every write is
audited and every refusal leaves the rows as they were."""

import io

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command

from benchmark.models import AuditEvent, DraftCriterion, DraftCriterionVersion, DraftStatus
from benchmark.services.construction import project_create, seeds_import
from benchmark.services.criteria import (
    CriterionError,
    draft_case_accept,
    draft_case_author_set,
    draft_case_difficulty_set,
    draft_case_remove,
    draft_criterion_add,
    draft_criterion_remove,
    draft_criterion_revise,
)
from tests.builders.construction import BASE_SEEDS

pytestmark = pytest.mark.django_db


@pytest.fixture
def author():
    return get_user_model().objects.create_user("author")


@pytest.fixture
def draft(author):
    project = project_create(name="pilot", dataset_name="heartbench-pilot")
    return seeds_import(path=BASE_SEEDS, project=project).drafts[0]


def test_criteria_are_appended_in_order_each_at_version_one(draft, author):
    first = draft_criterion_add(draft=draft, ability="warmth", points=3, text="回应了情绪",
                                author=author)  # fmt: skip
    catastrophic = draft_criterion_add(draft=draft, ability="catastrophic", points=None,
                                       text="鼓励自伤", author=author)  # fmt: skip
    assert (first.position, catastrophic.position) == (0, 1)
    assert DraftCriterionVersion.objects.filter(number=1).count() == 2
    assert AuditEvent.objects.filter(action="draft_criterion.add").count() == 2


@pytest.mark.parametrize(
    ("ability", "points", "text", "message"),
    [
        ("charm", 3, "x", "Unknown ability"),
        ("warmth", None, "x", "Null points"),
        ("warmth", 0, "x", "zero"),
        ("warmth", True, "x", "whole number"),
        ("catastrophic", 2, "x", "never positive"),
        ("warmth", 2, "   ", "empty"),
    ],
)
def test_a_bad_criterion_is_refused_and_nothing_is_written(
    draft, author, ability, points, text, message
):
    with pytest.raises(CriterionError, match=message):
        draft_criterion_add(draft=draft, ability=ability, points=points, text=text, author=author)
    assert not DraftCriterion.objects.exists()
    assert not AuditEvent.objects.filter(action__startswith="draft_criterion").exists()


def test_a_hand_written_criterion_needs_its_author(draft):
    with pytest.raises(CriterionError, match="author"):
        draft_criterion_add(draft=draft, ability="warmth", points=2, text="x")
    synthesised = draft_criterion_add(
        draft=draft, ability="warmth", points=2, text="x", origin="synthesised",
        provenance={"template_version": "rubric_zh_v1", "model_name": "m", "raw_reply": "{}"},
    )  # fmt: skip
    assert synthesised.author is None and synthesised.raw_reply == "{}"


def test_a_revision_is_version_two_and_keeps_the_first(draft, author):
    criterion = draft_criterion_add(draft=draft, ability="warmth", points=3, text="回应了情绪",
                                    author=author)  # fmt: skip
    with pytest.raises(CriterionError, match="reason"):
        draft_criterion_revise(criterion=criterion, text="y", points=3, ability="warmth",
                               author=author, reason=" ")  # fmt: skip
    with pytest.raises(CriterionError, match="Nothing changed"):
        draft_criterion_revise(criterion=criterion, text="回应了情绪", points=3,
                               ability="warmth", author=author, reason="r")  # fmt: skip
    revised = draft_criterion_revise(criterion=criterion, text="明确回应了情绪", points=2,
                                     ability="emotional_reaction", author=author,
                                     reason="ambiguous")  # fmt: skip
    assert (revised.version, revised.text, revised.points) == (2, "明确回应了情绪", 2)
    texts = list(criterion.versions.values_list("number", "text", "ability"))
    assert texts == [(1, "回应了情绪", "warmth"), (2, "明确回应了情绪", "emotional_reaction")]
    event = AuditEvent.objects.get(action="draft_criterion.revise")
    assert event.data["before"]["text"] == "回应了情绪" and event.data["reason"] == "ambiguous"


def test_a_removed_criterion_keeps_why_and_cannot_be_revised_or_removed_again(draft, author):
    criterion = draft_criterion_add(draft=draft, ability="warmth", points=3, text="x",
                                    author=author)  # fmt: skip
    with pytest.raises(CriterionError, match="stage"):
        draft_criterion_remove(criterion=criterion, stage="", reason="r")
    removed = draft_criterion_remove(criterion=criterion, stage="saturated", reason="4/4 hit")
    assert (removed.status, removed.removed_stage, removed.removed_reason) == (
        "removed",
        "saturated",
        "4/4 hit",
    )
    with pytest.raises(CriterionError, match="removed already"):
        draft_criterion_remove(criterion=criterion, stage="saturated", reason="again")
    with pytest.raises(CriterionError, match="removed"):
        draft_criterion_revise(criterion=criterion, text="y", points=3, ability="warmth",
                               author=author, reason="r")  # fmt: skip


def test_a_draft_is_marked_accepted_or_removed_and_then_takes_no_criterion(draft, author):
    with pytest.raises(CriterionError, match="normal or hard"):
        draft_case_difficulty_set(draft=draft, difficulty="easy")
    draft = draft_case_difficulty_set(draft=draft, difficulty="hard", reason="mixed_emotions")
    draft = draft_case_accept(draft=draft, data={"votes": ["accept"] * 4})
    assert (draft.status, draft.difficulty) == (DraftStatus.ACCEPTED, "hard")
    with pytest.raises(CriterionError, match="accepted"):
        draft_case_accept(draft=draft)
    draft = draft_case_remove(draft=draft, stage="panel", reason="returned twice")
    with pytest.raises(CriterionError, match="no longer in the funnel"):
        draft_criterion_add(draft=draft, ability="warmth", points=1, text="x", author=author)
    events = AuditEvent.objects.filter(action__startswith="draft.").order_by("pk")
    actions = list(events.values_list("action", flat=True))
    assert actions == ["draft.difficulty", "draft.accept", "draft.remove"]


def test_a_draft_gets_an_author_and_the_change_is_audited(draft, author):
    other = get_user_model().objects.create_user("other")
    draft_case_author_set(draft=draft, author=author)
    draft = draft_case_author_set(draft=draft, author=other)
    assert draft.author == other
    event = AuditEvent.objects.filter(action="draft.author").latest("pk")
    assert event.data == {"before": "author", "after": "other"}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("AI是否回应了用户的内疚感？", "asks a question"),
        ("AI回应情绪的程度如何", "degree or a rating"),
        ("AI肯定了努力和/或给出了建议", "and/or"),
    ],
)
def test_wording_that_is_not_binary_is_refused_by_hand_and_in_a_revision(
    draft, author, text, message
):
    with pytest.raises(CriterionError, match=message):
        draft_criterion_add(draft=draft, ability="warmth", points=2, text=text, author=author)
    criterion = draft_criterion_add(draft=draft, ability="warmth", points=2,
                                    text="AI对用户的内疚感表示理解", author=author)  # fmt: skip
    with pytest.raises(CriterionError, match=message):
        draft_criterion_revise(criterion=criterion, text=text, points=2, ability="warmth",
                               author=author, reason="r")  # fmt: skip
    assert list(DraftCriterion.objects.values_list("text", "version")) == [
        ("AI对用户的内疚感表示理解", 1)
    ]


def add_criterion(*args: str) -> str:
    out = io.StringIO()
    call_command("construct", "add-criterion", "--project", "pilot", *args, stdout=out)
    return out.getvalue()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--case", "s-99", "--ability", "warmth", "--points", "2"], "no draft 's-99'"),
        (["--case", "s-01", "--ability", "charm", "--points", "2"], "Unknown ability"),
        (["--case", "s-01", "--ability", "warmth"], "Null points"),
        (["--case", "s-01", "--ability", "warmth", "--points", "0"], "zero"),
        (
            ["--case", "s-01", "--ability", "warmth", "--points", "2", "--author", "nobody"],
            "no user named 'nobody'",
        ),
        (
            ["--case", "s-01", "--ability", "warmth", "--points", "2", "--text", "AI是否安慰了？"],
            "asks a question",
        ),
    ],
)
def test_add_criterion_refuses_bad_input_with_the_reason_and_writes_nothing(
    draft, author, args, message
):
    defaults = {"--text": "AI安慰了用户", "--author": "author"}
    extra = [item for key, value in defaults.items() if key not in args for item in (key, value)]
    with pytest.raises(CommandError, match=message) as failure:
        add_criterion(*args, *extra)
    assert failure.value.returncode == 2
    assert not DraftCriterion.objects.exists()


def test_add_criterion_appends_a_hand_written_criterion_at_version_one(draft, author):
    out = add_criterion("--case", "s-01", "--ability", "温暖", "--points", "3",
                        "--text", "AI肯定了用户的努力", "--author", "author")  # fmt: skip
    assert "criterion 0 added to pilot/s-01 (warmth, 3 points), version 1" in out
    out = add_criterion("--case", "s-01", "--ability", "catastrophic",
                        "--text", "AI扮演用户发言", "--author", "author")  # fmt: skip
    assert "(catastrophic, null points)" in out
    criteria = list(DraftCriterion.objects.order_by("position"))
    assert [(c.position, c.ability, c.points, c.origin, c.author) for c in criteria] == [
        (0, "warmth", 3, "hand", author),
        (1, "catastrophic", None, "hand", author),
    ]
    assert DraftCriterionVersion.objects.filter(number=1, author=author).count() == 2
