"""Self-validation: the author mock-scores the chosen reference answers (saved, then submitted
whole and final, audited); the judge's verdicts appear beside a response only once it is
submitted, and only from a snapshot that froze the criterion at the labelled version."""

import pytest
from django.contrib.auth import get_user_model
from django.core.exceptions import PermissionDenied
from django.db import connection
from django.http import Http404
from django.test.utils import CaptureQueriesContext

from annotation.models import MockScore
from annotation.selectors.selfcheck import (
    mock_score_pairs,
    selfcheck_comparison,
    selfcheck_dialogue,
    selfcheck_draft_get,
    selfcheck_drafts,
    selfcheck_responses,
    selfcheck_saved_labels,
)
from annotation.selfcheck import AGREE, DISAGREE, JUDGE_ERROR, NO_VERDICT, MockScorePair
from annotation.services.selfcheck import SelfcheckError, mock_scores_save, mock_scores_submit
from benchmark.models import AuditEvent
from benchmark.services.criteria import draft_criterion_add, draft_criterion_revise
from tests.builders.selfcheck import selfcheck_world, snapshot_judged

pytestmark = pytest.mark.django_db

MET, NOT = "met", "not_met"


@pytest.fixture
def author():
    return get_user_model().objects.create_user("author")


@pytest.fixture
def world(author):
    return selfcheck_world(author=author)


def labels(world, *marks: bool) -> dict[int, bool]:
    return {criterion.pk: mark for criterion, mark in zip(world.criteria, marks, strict=True)}


def test_the_first_two_answers_by_model_name_are_chosen_whatever_the_judge_says(world):
    snapshot_judged(draft=world.draft, states={"ref-a": [MET] * 3, "ref-b": [NOT] * 3,
                                               "ref-c": [NOT, MET, NOT]})  # fmt: skip
    chosen = selfcheck_responses(draft=world.draft)
    assert [response.model.name for response in chosen] == ["pilot-ref-a", "pilot-ref-b"]


# Bad input first: each refusal writes nothing, not even an audit row.
@pytest.mark.parametrize(
    ("case", "message"),
    [
        ("not the author", "Only the author"),
        ("not chosen", "not one the draft's author labels"),  # ref-c: third by name
        ("unknown criterion", "has the id 999999"),
        ("incomplete", "still unlabelled"),
    ],
)
def test_bad_labels_are_refused_and_nothing_is_written(world, case, message):
    response, marks = world.responses["ref-a"], labels(world, True, False, False)
    user = world.draft.author
    if case == "not the author":
        user = get_user_model().objects.create_user("intruder")
    elif case == "not chosen":
        response = world.responses["ref-c"]
    elif case == "unknown criterion":
        marks[999999] = True
    else:
        del marks[world.criteria[1].pk]
    with pytest.raises(SelfcheckError, match=message):
        mock_scores_submit(draft=world.draft, response=response, author=user, labels=marks)
    assert not MockScore.objects.exists()
    assert not AuditEvent.objects.filter(action__startswith="mock_score").exists()


def test_the_refusal_names_the_unlabelled_positions(world):
    with pytest.raises(SelfcheckError, match="2, 3 still unlabelled"):
        mock_scores_submit(draft=world.draft, response=world.responses["ref-a"],
                           author=world.draft.author,
                           labels={world.criteria[0].pk: True})  # fmt: skip


def test_saved_labels_complete_a_submit_and_are_then_final(world, author):
    response = world.responses["ref-a"]
    first = {world.criteria[0].pk: True, world.criteria[1].pk: True}
    mock_scores_save(draft=world.draft, response=response, author=author, labels=first)
    mock_scores_save(draft=world.draft, response=response, author=author,
                     labels={world.criteria[1].pk: False})  # fmt: skip
    assert selfcheck_saved_labels(response=response, author=author) == {
        world.criteria[0].pk: True, world.criteria[1].pk: False}  # fmt: skip
    count = mock_scores_submit(draft=world.draft, response=response, author=author,
                               labels={world.criteria[2].pk: False})  # fmt: skip
    assert count == 3
    assert MockScore.objects.filter(submitted_at__isnull=False).count() == 3
    with pytest.raises(SelfcheckError, match="submitted already"):
        mock_scores_save(draft=world.draft, response=response, author=author, labels=first)
    actions = list(AuditEvent.objects.filter(action__startswith="mock_score")
                   .values_list("action", flat=True).order_by("pk"))  # fmt: skip
    assert actions == ["mock_score.save", "mock_score.save", "mock_score.submit"]


def test_a_label_saved_before_a_revision_must_be_given_again(world, author):
    response = world.responses["ref-a"]
    mock_scores_save(draft=world.draft, response=response, author=author,
                     labels=labels(world, True, True, False))  # fmt: skip
    draft_criterion_revise(criterion=world.criteria[1], text="询问了失眠持续的时间", points=2,
                           ability="curiosity", author=author, reason="更具体")  # fmt: skip
    assert world.criteria[1].pk not in selfcheck_saved_labels(response=response, author=author)
    with pytest.raises(SelfcheckError, match="2 still unlabelled"):
        mock_scores_submit(draft=world.draft, response=response, author=author, labels={})


def test_the_judge_is_hidden_until_the_response_is_submitted(world, author):
    snapshot_judged(draft=world.draft, states={"ref-a": [MET, NOT, NOT], "ref-b": [MET] * 3,
                                               "ref-c": [NOT] * 3})  # fmt: skip
    response = world.responses["ref-a"]
    mock_scores_save(draft=world.draft, response=response, author=author,
                     labels=labels(world, True, True, False))  # fmt: skip
    before = selfcheck_comparison(draft=world.draft)
    assert [(c.letter, c.submitted, c.rows) for c in before] == [("A", False, []), ("B", False, [])]
    mock_scores_submit(draft=world.draft, response=response, author=author, labels={})
    a, b = selfcheck_comparison(draft=world.draft)
    assert [row.state for row in a.rows] == [AGREE, DISAGREE, AGREE]
    assert a.disagreements == 1 and a.rows[0].verdict.run.judge.name == "judge-x"
    assert (b.submitted, b.rows) == (False, [])  # B's verdicts stay hidden


def test_a_verdict_counts_only_at_the_version_labelled(world, author):
    """v1 labelled; the snapshot froze v1; after a revision the newer snapshot (v2) is not
    compared with the v1 label, and a criterion frozen by no snapshot says so."""
    snapshot_judged(draft=world.draft, states={"ref-a": [MET, NOT, "error"],
                                               "ref-b": [MET] * 3, "ref-c": [NOT] * 3})  # fmt: skip
    extra = draft_criterion_add(draft=world.draft, ability="morality", points=2,
                                text="尊重用户的选择", author=author)  # fmt: skip
    response = world.responses["ref-a"]
    mock_scores_submit(draft=world.draft, response=response, author=author,
                       labels={**labels(world, True, False, True), extra.pk: True})  # fmt: skip
    rows = selfcheck_comparison(draft=world.draft)[0].rows
    assert [row.state for row in rows] == [AGREE, AGREE, JUDGE_ERROR, NO_VERDICT]
    draft_criterion_revise(criterion=world.criteria[0], text="回应了用户的疲惫", points=3,
                           ability="warmth", author=author, reason="更短")  # fmt: skip
    snapshot_judged(draft=world.draft, states={"ref-a": [NOT, NOT, NOT, MET],
                                               "ref-b": [MET] * 4, "ref-c": [NOT] * 4})  # fmt: skip
    rows = selfcheck_comparison(draft=world.draft)[0].rows
    # The first: its v1 label still meets the v1 verdict (met), not v2's "not met". The
    # third, unchanged at v1, takes the newer snapshot's verdict; the fourth now has one.
    assert [row.state for row in rows] == [AGREE, AGREE, DISAGREE, AGREE]
    assert rows[0].stale and (rows[0].label_version, rows[0].criterion.version) == (1, 2)
    assert not rows[1].stale


def test_the_newest_snapshot_wins_at_the_same_version(world, author):
    snapshot_judged(draft=world.draft, states={"ref-a": [NOT] * 3, "ref-b": [NOT] * 3,
                                               "ref-c": [NOT] * 3})  # fmt: skip
    snapshot_judged(draft=world.draft, judge_name="judge-y",
                    states={"ref-a": [MET] * 3, "ref-b": [NOT] * 3,
                            "ref-c": [NOT] * 3})  # fmt: skip
    mock_scores_submit(draft=world.draft, response=world.responses["ref-a"], author=author,
                       labels=labels(world, True, True, True))  # fmt: skip
    rows = selfcheck_comparison(draft=world.draft)[0].rows
    assert {row.verdict.run.judge.name for row in rows} == {"judge-y"}
    assert {row.state for row in rows} == {AGREE}


def test_pairs_for_the_report_are_plain_tuples_without_errors_or_missing_verdicts(world, author):
    snapshot_judged(draft=world.draft, states={"ref-a": [MET, MET, "error"],
                                               "ref-b": [NOT, MET, NOT],
                                               "ref-c": [MET] * 3})  # fmt: skip
    for key, marks in (("ref-a", (True, False, False)), ("ref-b", (True, True, False))):
        mock_scores_submit(draft=world.draft, response=world.responses[key], author=author,
                           labels=labels(world, *marks))  # fmt: skip
    qid = world.draft.question_id
    a, b = world.responses["ref-a"].pk, world.responses["ref-b"].pk
    c0, c1, c2 = (criterion.pk for criterion in world.criteria)
    assert mock_score_pairs(project=world.project) == sorted([
        MockScorePair(qid, c0, a, True, True), MockScorePair(qid, c1, a, False, True),
        MockScorePair(qid, c0, b, True, False), MockScorePair(qid, c1, b, True, True),
        MockScorePair(qid, c2, b, False, False),
    ])  # fmt: skip


def test_only_the_author_and_staff_find_the_draft(world, author):
    other = get_user_model().objects.create_user("other")
    staff = get_user_model().objects.create_user("staff", is_staff=True)
    draft_id = world.draft.pk
    assert selfcheck_draft_get(user=author, draft_id=draft_id, labelling=True) == world.draft
    assert selfcheck_draft_get(user=staff, draft_id=draft_id) == world.draft
    with pytest.raises(PermissionDenied):
        selfcheck_draft_get(user=staff, draft_id=draft_id, labelling=True)
    with pytest.raises(Http404):
        selfcheck_draft_get(user=other, draft_id=draft_id)
    assert [d.pk for d in selfcheck_drafts(user=other)] == []
    mock_scores_submit(draft=world.draft, response=world.responses["ref-b"], author=author,
                       labels=labels(world, True, True, False))  # fmt: skip
    (row,) = selfcheck_drafts(user=author)
    assert (row.reference_count, row.submitted_count) == (3, 1)
    assert [d.pk for d in selfcheck_drafts(user=staff)] == [draft_id]


def test_the_comparison_reads_in_a_fixed_number_of_queries(world, author):
    snapshot_judged(draft=world.draft, states={"ref-a": [MET] * 3, "ref-b": [NOT] * 3,
                                               "ref-c": [NOT] * 3})  # fmt: skip
    for key in ("ref-a", "ref-b"):
        mock_scores_submit(draft=world.draft, response=world.responses[key], author=author,
                           labels=labels(world, True, False, True))  # fmt: skip
    with CaptureQueriesContext(connection) as queries:
        rows = [row for c in selfcheck_comparison(draft=world.draft) for row in c.rows]
        judges = {row.verdict.run.judge.name for row in rows}
    assert len(rows) == 6 and judges == {"judge-x"}
    assert len(queries) == 4  # responses, criteria, mock scores, verdicts


def test_the_dialogue_is_the_one_the_response_answered(world):
    draft = world.draft
    draft.rewrite = [{"role": "A", "content": "改写后的倾诉"}]
    answered_seed, answered_rewrite = world.responses["ref-a"], world.responses["ref-b"]
    answered_rewrite.from_rewrite = True
    seed = [turn["content"] for turn in draft.dialogue]
    assert [t["content"] for t in selfcheck_dialogue(draft=draft, response=answered_seed)] == seed
    assert selfcheck_dialogue(draft=draft, response=answered_rewrite) == [
        {"role": "user", "content": "改写后的倾诉"}]  # fmt: skip
