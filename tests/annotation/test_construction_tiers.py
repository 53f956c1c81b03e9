"""The construction tiers as expert work: claims (independence, no expert twice, leases that
lapse), the difficulty majority, criterion reviews, the senior panel's rules, a returned draft
revised and sent again, and the reviewers' agreement."""

from datetime import timedelta

import pytest
from django.utils import timezone

from annotation.construction_rules import difficulty_decide, panel_accepts
from annotation.models import ConstructionTask, CriterionReview, DifficultyMark, PanelRound
from annotation.selectors.construction import (
    construction_review_summary,
    construction_work_for_expert,
    criterion_for_author,
    drafts_for_author,
)
from annotation.services.construction import (
    construction_task_claim_next,
    construction_work_open,
    criterion_review_submit,
    difficulty_mark_submit,
    drafts_authors_assign,
    panel_send,
    panel_vote_submit,
)
from annotation.services.errors import AnnotationError, LeaseLost
from benchmark.models import AuditEvent, DraftCase, DraftStatus
from benchmark.services.criteria import draft_case_remove, draft_criterion_revise
from tests.builders.accounts import ExpertFactory, UserFactory
from tests.builders.construction import project_build

pytestmark = pytest.mark.django_db


@pytest.fixture
def built():
    return project_build()


def _claim(expert, built, kind, now=None):
    return construction_task_claim_next(user=expert.user, project=built.project, kind=kind, now=now)


def _review_all(built, *, reviewers, verdict="clear", comment=""):
    for expert in reviewers:
        while (task := _claim(expert, built, "criterion_review")) is not None:
            criteria = task.draft.criteria.filter(status="active")
            criterion_review_submit(
                user=expert.user,
                task_id=task.pk,
                verdicts={c.pk: (verdict, comment) for c in criteria},
            )


@pytest.mark.parametrize(
    ("marks", "decided"),
    [
        ([("hard", "mixed_emotions"), ("hard", "ethical_tradeoff"), ("normal", "")],
         ("hard", "mixed_emotions")),
        ([("hard", "ethical_tradeoff"), ("normal", ""), ("normal", "")], ("normal", "")),
        ([("hard", "other"), ("normal", "")], ("hard", "other")),
        ([("hard", "ethical_tradeoff"), ("hard", "other"), ("hard", "ethical_tradeoff")],
         ("hard", "ethical_tradeoff")),
    ],
)  # fmt: skip
def test_difficulty_is_the_majority_and_a_tie_is_hard(marks, decided):
    assert difficulty_decide(marks) == decided


def test_the_panel_rules():
    assert panel_accepts(votes=["accept"] * 4, rule="unanimous")
    assert not panel_accepts(votes=["accept"] * 3 + ["return"], rule="unanimous")
    assert panel_accepts(votes=["accept"] * 3 + ["return"], rule="majority")
    assert not panel_accepts(votes=["accept"] * 2 + ["return"] * 2, rule="majority")
    with pytest.raises(ValueError, match="unknown panel rule"):
        panel_accepts(votes=["accept"], rule="most")


def test_closed_or_unopened_work_hands_out_nothing(built):
    with pytest.raises(AnnotationError, match="not open"):
        _claim(built.experts[0], built, "difficulty")


def test_difficulty_claims_give_each_draft_to_three_experts_once_each(built):
    construction_work_open(project=built.project, kind="difficulty")
    first = _claim(built.experts[0], built, "difficulty")
    assert first.draft == built.drafts[0]
    # Asking again while holding it gives it back, renewed.
    assert _claim(built.experts[0], built, "difficulty") == first
    difficulty_mark_submit(user=built.experts[0].user, task_id=first.pk, difficulty="normal")
    second = _claim(built.experts[0], built, "difficulty")
    assert second.draft == built.drafts[1]
    # The author may mark difficulty (independence is for review and the panel).
    assert _claim(built.author, built, "difficulty").draft == built.drafts[0]
    assert _claim(built.experts[1], built, "difficulty").draft == built.drafts[0]
    # Draft 0 is full (expert0 submitted, author and expert1 hold leases): expert2 skips it.
    assert _claim(built.experts[2], built, "difficulty").draft == built.drafts[1]


def test_the_last_difficulty_mark_sets_the_majority_through_the_criteria_service(built):
    construction_work_open(project=built.project, kind="difficulty")
    answers = [("hard", "mixed_emotions"), ("normal", ""), ("hard", "mixed_emotions")]
    for expert, (difficulty, reason) in zip(built.experts, answers, strict=True):
        task = _claim(expert, built, "difficulty")
        assert task.draft == built.drafts[0]
        DraftCase.objects.filter(pk=built.drafts[0].pk, difficulty="").get()  # undecided yet
        difficulty_mark_submit(
            user=expert.user, task_id=task.pk, difficulty=difficulty, reason=reason
        )
    draft = DraftCase.objects.get(pk=built.drafts[0].pk)
    assert (draft.difficulty, draft.difficulty_reason) == ("hard", "mixed_emotions")
    assert AuditEvent.objects.filter(action="draft.difficulty", object_id=str(draft.pk)).exists()
    assert AuditEvent.objects.filter(action="construction_task.submit").count() == 3
    # A decided draft is handed out no more.
    nobody = ExpertFactory(user=UserFactory(username="late"))
    assert _claim(nobody, built, "difficulty").draft == built.drafts[1]


@pytest.mark.parametrize(
    ("answer", "message"),
    [
        ({"difficulty": "medium"}, "normal or hard"),
        ({"difficulty": "hard"}, "why the case is hard"),
        ({"difficulty": "hard", "reason": "other"}, "other reason"),
    ],
)
def test_a_bad_difficulty_mark_is_refused_and_writes_nothing(built, answer, message):
    construction_work_open(project=built.project, kind="difficulty", raters=1)
    task = _claim(built.experts[0], built, "difficulty")
    with pytest.raises(AnnotationError, match=message):
        difficulty_mark_submit(user=built.experts[0].user, task_id=task.pk, **answer)
    assert not DifficultyMark.objects.exists()
    task.refresh_from_db()
    assert task.status == "leased"
    assert DraftCase.objects.get(pk=task.draft_id).difficulty == ""


def test_a_lapsed_lease_returns_the_draft_to_the_queue(built):
    construction_work_open(project=built.project, kind="difficulty", raters=1)
    now = timezone.now()
    lapsed = _claim(built.experts[0], built, "difficulty", now=now)
    later = now + timedelta(hours=1)
    # Lapsed but not yet taken: its expert may still answer it.
    taken = _claim(built.experts[1], built, "difficulty", now=later)
    assert taken.draft == lapsed.draft
    lapsed.refresh_from_db()
    assert lapsed.status == "expired"
    with pytest.raises(LeaseLost):
        difficulty_mark_submit(
            user=built.experts[0].user, task_id=lapsed.pk, difficulty="normal", now=later
        )
    assert AuditEvent.objects.filter(action="construction_task.lease_expired").count() == 1


def test_a_lapsed_lease_whose_slot_is_free_can_still_be_answered(built):
    construction_work_open(project=built.project, kind="difficulty", raters=1)
    now = timezone.now()
    task = _claim(built.experts[0], built, "difficulty", now=now)
    difficulty_mark_submit(
        user=built.experts[0].user, task_id=task.pk, difficulty="normal",
        now=now + timedelta(hours=2),
    )  # fmt: skip
    assert DraftCase.objects.get(pk=task.draft_id).difficulty == "normal"


def test_review_and_panel_never_go_to_the_author_and_the_panel_only_to_seniors(built):
    construction_work_open(project=built.project, kind="criterion_review")
    construction_work_open(project=built.project, kind="panel")
    assert _claim(built.author, built, "criterion_review") is None
    with pytest.raises(AnnotationError, match="senior"):
        _claim(built.experts[0], built, "panel")
    rows = construction_work_for_expert(user=built.experts[0].user, now=timezone.now())
    assert [(r.work.kind, r.waiting) for r in rows] == [("criterion_review", 3)]
    senior_author = ExpertFactory(user=UserFactory(username="senior-author"), tier="senior")
    DraftCase.objects.filter(pk=built.drafts[0].pk).update(author=senior_author.user)
    _review_all(built, reviewers=built.experts[:2])
    panel_send(user=senior_author.user, draft=built.drafts[0])
    assert _claim(senior_author, built, "panel") is None


@pytest.mark.parametrize(
    ("verdicts", "message"),
    [
        ("missing", "every criterion"),
        ("ambiguous-no-comment", "say what is wrong"),
        ("unknown", "Unknown verdict"),
    ],
)
def test_a_bad_review_is_refused_and_writes_nothing(built, verdicts, message):
    construction_work_open(project=built.project, kind="criterion_review")
    task = _claim(built.experts[0], built, "criterion_review")
    ids = list(task.draft.criteria.values_list("pk", flat=True))
    answer = {pk: ("clear", "") for pk in ids}
    if verdicts == "missing":
        del answer[ids[-1]]
    else:
        answer[ids[1]] = ("ambiguous", "  ") if verdicts.startswith("ambiguous") else ("vague", "x")
    with pytest.raises(AnnotationError, match=message):
        criterion_review_submit(user=built.experts[0].user, task_id=task.pk, verdicts=answer)
    assert not CriterionReview.objects.exists()


def _panel(built, *, votes, draft=None):
    draft = draft or built.drafts[0]
    for senior, vote in zip(built.seniors, votes, strict=False):
        task = _claim(senior, built, "panel")
        assert task.draft == draft
        panel_vote_submit(
            user=senior.user,
            task_id=task.pk,
            vote=vote,
            reason="" if vote == "accept" else f"{senior.user.username}: criterion 2 is vague",
        )


def test_reviews_then_the_author_sends_then_a_unanimous_panel_accepts(built):
    construction_work_open(project=built.project, kind="criterion_review")
    construction_work_open(project=built.project, kind="panel")
    with pytest.raises(AnnotationError, match="not complete"):
        panel_send(user=built.author.user, draft=built.drafts[0])
    _review_all(built, reviewers=built.experts[:2])
    assert [row["draft"] for row in drafts_for_author(user=built.author.user)] == built.drafts
    with pytest.raises(AnnotationError, match="Only the author"):
        panel_send(user=built.experts[0].user, draft=built.drafts[0])
    panel_send(user=built.author.user, draft=built.drafts[0])
    with pytest.raises(AnnotationError, match="already"):
        panel_send(user=built.author.user, draft=built.drafts[0])
    # While with the panel, the author cannot revise.
    criterion = built.drafts[0].criteria.first()
    with pytest.raises(LookupError):
        criterion_for_author(user=built.author.user, criterion_id=criterion.pk)
    _panel(built, votes=["accept"] * 3)
    assert DraftCase.objects.get(pk=built.drafts[0].pk).status == DraftStatus.ACTIVE
    last = _claim(built.seniors[3], built, "panel")
    panel_vote_submit(user=built.seniors[3].user, task_id=last.pk, vote="accept")
    assert DraftCase.objects.get(pk=built.drafts[0].pk).status == DraftStatus.ACCEPTED
    accepted = AuditEvent.objects.get(action="draft.accept")
    assert [v["vote"] for v in accepted.data["votes"]] == ["accept"] * 4
    assert accepted.data["rule"] == "unanimous"
    assert {v["rater"] for v in accepted.data["votes"]} == {s.pseudonym for s in built.seniors}
    assert PanelRound.objects.get().outcome == "accepted"


def test_a_returned_draft_is_revised_and_sent_to_a_new_round(built):
    construction_work_open(project=built.project, kind="criterion_review")
    construction_work_open(project=built.project, kind="panel")
    _review_all(built, reviewers=built.experts[:2], verdict="ambiguous", comment="which exam?")
    row = drafts_for_author(user=built.author.user)[0]
    assert row["problems"] == 3
    assert [r.comment for r in row["criteria"][0]["reviews"]] == ["which exam?"] * 2
    panel_send(user=built.author.user, draft=built.drafts[0])
    with pytest.raises(AnnotationError, match="why the draft goes back"):
        panel_vote_submit(
            user=built.seniors[0].user,
            task_id=_claim(built.seniors[0], built, "panel").pk,
            vote="return",
        )
    ConstructionTask.objects.filter(kind="panel").delete()
    _panel(built, votes=["accept", "accept", "return", "accept"])
    assert DraftCase.objects.get(pk=built.drafts[0].pk).status == DraftStatus.ACTIVE
    first = PanelRound.objects.get(number=1)
    assert first.outcome == "returned"
    returns = drafts_for_author(user=built.author.user)[0]["returns"]
    assert returns[0]["reasons"] == ["pilot-senior2: criterion 2 is vague"]
    # The author revises through the criteria service and sends again: round two.
    criterion = criterion_for_author(
        user=built.author.user, criterion_id=row["criteria"][1]["criterion"].pk
    )
    draft_criterion_revise(
        criterion=criterion, text="语气温和，不评判用户的选择", points=2, ability="warmth",
        author=built.author.user, reason="review: vague",
    )  # fmt: skip
    assert panel_send(user=built.author.user, draft=built.drafts[0]).number == 2
    _panel(built, votes=["accept"] * 4)
    assert DraftCase.objects.get(pk=built.drafts[0].pk).status == DraftStatus.ACCEPTED
    assert list(PanelRound.objects.values_list("number", "outcome")) == [
        (1, "returned"),
        (2, "accepted"),
    ]


def test_a_majority_panel_of_three(built):
    construction_work_open(project=built.project, kind="criterion_review", raters=1)
    construction_work_open(project=built.project, kind="panel", raters=3, panel_rule="majority")
    _review_all(built, reviewers=built.experts[:1])
    panel_send(user=built.author.user, draft=built.drafts[0])
    _panel(built, votes=["accept", "return", "accept"])
    assert DraftCase.objects.get(pk=built.drafts[0].pk).status == DraftStatus.ACCEPTED
    # The fourth senior finds nothing: the panel of three is complete.
    assert _claim(built.seniors[3], built, "panel") is None


def test_the_review_summary_counts_verdicts_and_computes_alpha(built):
    construction_work_open(project=built.project, kind="criterion_review")
    assert construction_review_summary(project=built.project)["krippendorff_alpha"] is None
    for expert, verdict in zip(built.experts[:2], ["clear", "ambiguous"], strict=True):
        task = _claim(expert, built, "criterion_review")
        ids = list(task.draft.criteria.order_by("position").values_list("pk", flat=True))
        answer = {pk: ("clear", "") for pk in ids}
        answer[ids[0]] = (verdict, "" if verdict == "clear" else "vague")
        criterion_review_submit(user=expert.user, task_id=task.pk, verdicts=answer)
    summary = construction_review_summary(project=built.project)
    assert summary["reviewed"] == 3
    assert summary["all_clear_share"] == pytest.approx(2 / 3)
    assert summary["criteria"][0]["verdicts"] == {"clear": 1, "ambiguous": 1}
    # By hand: 6 pairable values (5 clear, 1 ambiguous); D_o = 2/6; D_e = 2·5·1/(6·5) = 1/3;
    # nominal α = 1 − D_o/D_e = 0.
    assert summary["krippendorff_alpha"] == pytest.approx(0.0)


def test_authors_are_assigned_round_robin_to_drafts_without_one(built):
    DraftCase.objects.update(author=None)
    users = [e.user for e in built.experts[:2]]
    assert drafts_authors_assign(project=built.project, users=users) == 3
    assert [DraftCase.objects.get(pk=d.pk).author for d in built.drafts] == [
        users[0],
        users[1],
        users[0],
    ]
    assert drafts_authors_assign(project=built.project, users=users) == 0
    with pytest.raises(AnnotationError, match="at least one"):
        drafts_authors_assign(project=built.project, users=[])


def test_a_mark_on_a_draft_removed_meanwhile_is_refused_whole(built):
    construction_work_open(project=built.project, kind="difficulty", raters=1)
    task = _claim(built.experts[0], built, "difficulty")
    draft_case_remove(draft=task.draft, stage="too_easy", reason="mean score 91")
    with pytest.raises(AnnotationError, match="removed"):
        difficulty_mark_submit(user=built.experts[0].user, task_id=task.pk, difficulty="hard",
                               reason="mixed_emotions")  # fmt: skip
    assert not DifficultyMark.objects.exists()
    task.refresh_from_db()
    assert task.status == "leased"
