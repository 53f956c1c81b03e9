"""Discussion threads, votes, moderation, FAQ search and the case library (services/selectors).

The visibility rule is tested branch by branch: an expert reads case C's threads only after
submitting a unit of C, and only while no rating work on C is possible for them.
"""

import io
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.db import IntegrityError, transaction
from django.http import Http404
from django.test import Client
from django.utils import timezone

from annotation import selectors, services
from annotation.models import (
    ACTIVE,
    Assignment,
    CalibrationSet,
    Comment,
    CommentVote,
    Expert,
    FaqEntry,
    LibraryEntry,
    Pool,
    Submission,
    Unit,
)
from annotation.selectors import knowledge
from benchmark.models import AuditEvent, RubricItem
from benchmark.services.demo import demo_load
from tests.builders.accounts import ExpertFactory, UserFactory
from tests.builders.datasets import case_with_rubric
from tests.builders.labels import all_labels
from tests.builders.studies import open_study

pytestmark = pytest.mark.django_db


# --- building blocks -------------------------------------------------------------------


def _lease(expert, unit: Unit, *, expires_in: timedelta = timedelta(minutes=30)) -> Assignment:
    taken = set(
        unit.assignments.filter(status__in=ACTIVE, kind="rating").values_list("slot", flat=True)
    )
    slot = min({1, 2, 3} - taken)
    unit.pool.experts.add(expert)
    return Assignment.objects.create(
        pool=unit.pool,
        unit=unit,
        expert=expert,
        slot=slot,
        lease_expires_at=timezone.now() + expires_in,
    )


def submit(expert, unit: Unit) -> Submission:
    assignment = _lease(expert, unit)
    submission, created = services.assignment_submit(
        assignment=assignment, labels=all_labels(assignment)
    )
    assert created
    return submission


def is_open(expert, case_id: int) -> bool:
    return case_id in knowledge.cases_open_for_discussion(user=expert.user, case_ids=[case_id])


@pytest.fixture
def two_units():
    """One case, two model responses: two units of the same case in one open study."""
    experts = ExpertFactory.create_batch(5)
    study = open_study(cases=1, models=2, experts=experts, name="k-study")
    units = list(study.pool.units.order_by("pk"))
    assert len(units) == 2 and units[0].response.case_id == units[1].response.case_id
    return experts, units, units[0].response.case_id


@pytest.fixture
def staff():
    return UserFactory(username="moderator", is_staff=True, is_superuser=True)


# --- the visibility rule ---------------------------------------------------------------


def test_no_submission_on_the_case_means_no_access_even_with_nothing_left_to_rate(two_units):
    (a, b, c, d, _e), units, case_id = two_units
    for unit in units:
        for rater in (a, b, c):
            submit(rater, unit)
    # d is in the pool, has nothing to rate (both units full) but never submitted one.
    assert knowledge.cases_pending_for_expert(expert=d) == set()
    assert not is_open(d, case_id)
    assert is_open(a, case_id)


def test_another_unit_of_the_case_with_a_free_slot_keeps_the_threads_closed(two_units):
    (a, b, c, _d, _e), units, case_id = two_units
    submit(a, units[0])
    submit(b, units[1])
    assert case_id in knowledge.cases_pending_for_expert(expert=a)
    assert not is_open(a, case_id)
    submit(c, units[1])
    assert not is_open(a, case_id)  # units[1] still has a third slot a could take
    submit(_d, units[1])
    assert is_open(a, case_id)  # a submitted units[0]; units[1] is full with others


def test_live_leases_of_others_fill_a_unit_but_expired_ones_do_not(two_units):
    (a, b, c, d, _e), units, case_id = two_units
    submit(a, units[0])
    submit(b, units[1])
    _lease(c, units[1])
    stale = _lease(d, units[1])
    assert is_open(a, case_id)
    Assignment.objects.filter(pk=stale.pk).update(
        lease_expires_at=timezone.now() - timedelta(seconds=1)
    )
    # Not swept yet, but the next claim would hand that slot to a: closed again.
    assert not is_open(a, case_id)


def test_a_lease_of_ones_own_on_the_case_keeps_it_closed(two_units):
    (a, b, c, _d, _e), units, case_id = two_units
    submit(a, units[0])
    submit(b, units[1])
    submit(c, units[1])
    _lease(a, units[1])  # the unit is now full, but a is the one holding the third slot
    assert case_id in knowledge.cases_pending_for_expert(expert=a)
    assert not is_open(a, case_id)


def test_only_open_pools_the_expert_belongs_to_count(two_units):
    (a, b, c, d, e), units, case_id = two_units
    submit(a, units[0])
    submit(b, units[1])
    submit(c, units[1])
    submit(d, units[1])
    assert is_open(a, case_id)
    # Another study over the same case that a is not in: no work for a there.
    other = Pool.objects.create(name="other", status=Pool.Status.OPEN)
    other.experts.add(e)
    Unit.objects.create(pool=other, response=units[0].response)
    assert is_open(a, case_id)
    # Once a joins it, that unit is work a may still get.
    other.experts.add(a)
    assert not is_open(a, case_id)
    # A closed (or draft) pool hands out no rating work.
    Pool.objects.filter(pk=other.pk).update(status=Pool.Status.CLOSED)
    assert is_open(a, case_id)
    Pool.objects.filter(pk=other.pk).update(status=Pool.Status.DRAFT)
    assert is_open(a, case_id)


def test_a_calibration_unit_of_the_case_is_pending_until_the_expert_has_rated_it(two_units):
    (a, b, c, d, _e), units, case_id = two_units
    submit(a, units[0])
    for rater in (b, c, d):
        submit(rater, units[1])
    senior = ExpertFactory(tier="senior")
    pool = Pool.objects.create(name="calibration-k", status=Pool.Status.OPEN)
    CalibrationSet.objects.create(pool=pool, reference_by=senior)
    calibration_unit = Unit.objects.create(pool=pool, response=units[1].response)
    assert is_open(a, case_id)  # a is not sent to that calibration set
    units[0].pool.calibration = pool.calibration_set
    units[0].pool.save(update_fields=["calibration"])
    assert not is_open(a, case_id)  # the study a belongs to requires it
    Assignment.objects.create(
        pool=pool,
        unit=calibration_unit,
        expert=a,
        kind=Assignment.Kind.CALIBRATION,
        status=Assignment.Status.SUBMITTED,
        attempt=a.calibrations.create(
            calibration_set=pool.calibration_set, started_at=timezone.now()
        ),
        lease_expires_at=timezone.now(),
    )
    assert is_open(a, case_id)


def test_a_senior_cannot_read_the_threads_of_a_unit_waiting_for_their_adjudication(two_units):
    (a, b, c, d, _e), units, case_id = two_units
    senior = ExpertFactory(tier="senior")
    units[0].pool.experts.add(senior)
    submit(senior, units[0])
    submit(a, units[0])
    for rater in (b, c, d):
        submit(rater, units[1])
    assert is_open(senior, case_id)
    Unit.objects.filter(pk=units[1].pk).update(needs_adjudication=True)
    assert not is_open(senior, case_id)
    assert is_open(a, case_id)  # only seniors adjudicate
    assignment = Assignment.objects.create(
        pool=units[1].pool,
        unit=units[1],
        expert=senior,
        kind=Assignment.Kind.ADJUDICATION,
        status=Assignment.Status.SUBMITTED,
        lease_expires_at=timezone.now(),
    )
    Submission.objects.create(
        assignment=assignment, unit=units[1], expert=senior, kind=Assignment.Kind.ADJUDICATION
    )
    assert is_open(senior, case_id)


def test_staff_read_every_case_and_other_logins_none(two_units, staff):
    _experts, _units, case_id = two_units
    assert knowledge.cases_open_for_discussion(user=staff, case_ids=[case_id]) == {case_id}
    plain = UserFactory()
    assert knowledge.cases_open_for_discussion(user=plain, case_ids=[case_id]) == set()


def test_discussion_page_fetch_is_scoped_to_the_experts_own_submitted_unit(two_units, staff):
    (a, b, c, d, e), units, _case_id = two_units
    submit(a, units[0])
    with pytest.raises(Http404):  # submitted, but units[1] still needs raters
        knowledge.unit_get_for_discussion(user=a.user, token=units[0].token)
    for rater in (b, c, d):
        submit(rater, units[1])
    unit, assignment = knowledge.unit_get_for_discussion(user=a.user, token=units[0].token)
    assert unit == units[0] and assignment.expert == a
    with pytest.raises(Http404):  # a unit of the same case a did not rate
        knowledge.unit_get_for_discussion(user=a.user, token=units[1].token)
    with pytest.raises(Http404):
        knowledge.unit_get_for_discussion(user=e.user, token=units[0].token)
    with pytest.raises(Http404):
        knowledge.unit_get_for_discussion(user=a.user, token="no-such-token")
    assert knowledge.unit_get_for_discussion(user=staff, token=units[1].token) == (units[1], None)


def test_criteria_come_in_the_raters_own_order_without_points_or_abilities(two_units):
    (a, b, c, d, _e), units, case_id = two_units
    submit(a, units[0])
    for rater in (b, c, d):
        submit(rater, units[1])
    unit, assignment = knowledge.unit_get_for_discussion(user=a.user, token=units[0].token)
    page = knowledge.discussion_get(user=a.user, unit=unit, assignment=assignment)
    blind = selectors.unit_get_for_expert(user=a.user, assignment=assignment)
    assert [t.text for t in page.criteria] == [c.text for c in blind.criteria]
    ids = {t.id for t in page.criteria}
    items = RubricItem.objects.filter(case_id=case_id)
    assert not ids & ({str(i.pk) for i in items} | {str(i.position) for i in items})
    assert page.response == units[0].response.text and page.token == units[0].token


# --- posting, votes and moderation -----------------------------------------------------


@pytest.fixture
def open_thread(two_units):
    (a, b, c, d, e), units, _case_id = two_units
    submit(a, units[0])
    for rater in (b, c, d):
        submit(rater, units[1])
    submit(b, units[0])
    case = units[0].response.case
    return a, b, e, case


def test_post_on_the_case_and_on_a_criterion(open_thread):
    a, b, _e, case = open_thread
    item = case.rubric.order_by("position").first()
    services.comment_post(user=a.user, case=case, body="  整体上回应很共情。 ")
    services.comment_post(user=b.user, case=case, rubric_item=item, body="这一条我判为命中。")
    unit, assignment = knowledge.unit_get_for_discussion(
        user=a.user, token=case.responses.order_by("pk").first().annotation_units.get().token
    )
    page = knowledge.discussion_get(user=a.user, unit=unit, assignment=assignment)
    assert [c.body for c in page.case_thread.comments] == ["整体上回应很共情。"]
    assert page.case_thread.comments[0].author == a.display_name
    thread = next(t for t in page.criteria if t.text == item.text)
    assert [(c.body, c.author) for c in thread.comments] == [("这一条我判为命中。", b.display_name)]


def test_posting_is_refused_when_closed_empty_too_long_or_on_another_cases_criterion(open_thread):
    a, _b, e, case = open_thread
    with pytest.raises(services.KnowledgeError):
        services.comment_post(user=e.user, case=case, body="I have not rated it")
    with pytest.raises(services.KnowledgeError):
        services.comment_post(user=a.user, case=case, body="   ")
    with pytest.raises(services.KnowledgeError):
        services.comment_post(user=a.user, case=case, body="x" * 5001)
    foreign = case_with_rubric().rubric.first()
    with pytest.raises(services.KnowledgeError):
        services.comment_post(user=a.user, case=case, rubric_item=foreign, body="wrong case")
    assert Comment.objects.count() == 0


def test_votes_once_changed_removed_and_scored(open_thread, staff):
    a, b, _e, case = open_thread
    comment = services.comment_post(user=a.user, case=case, body="有帮助的观点")

    def score() -> int:
        return next(
            c.score for c in knowledge._comments(user=a.user, case_id=case.pk) if c.pk == comment.pk
        )

    services.comment_vote(user=b.user, comment=comment, value=1)
    services.comment_vote(user=b.user, comment=comment, value=1)
    assert CommentVote.objects.filter(comment=comment).count() == 1
    assert score() == 1
    services.comment_vote(user=staff, comment=comment, value=1)
    assert score() == 2
    services.comment_vote(user=b.user, comment=comment, value=-1)
    assert score() == 0
    assert CommentVote.objects.get(comment=comment, user=b.user).value == -1
    services.comment_vote(user=b.user, comment=comment, value=0)
    assert score() == 1
    assert not CommentVote.objects.filter(comment=comment, user=b.user).exists()
    with pytest.raises(services.KnowledgeError):
        services.comment_vote(user=a.user, comment=comment, value=1)  # own comment
    with pytest.raises(services.KnowledgeError):
        services.comment_vote(user=b.user, comment=comment, value=2)
    # The database holds "one vote per user" even against a direct second insert.
    CommentVote.objects.create(comment=comment, user=b.user, value=1)
    with pytest.raises(IntegrityError), transaction.atomic():
        CommentVote.objects.create(comment=comment, user=b.user, value=-1)


def test_my_vote_is_shown_to_me_only(open_thread):
    a, b, _e, case = open_thread
    comment = services.comment_post(user=a.user, case=case, body="看法")
    services.comment_vote(user=b.user, comment=comment, value=-1)
    mine = {c.pk: c.my_vote for c in knowledge._comments(user=b.user, case_id=case.pk)}
    theirs = {c.pk: c.my_vote for c in knowledge._comments(user=a.user, case_id=case.pk)}
    assert mine[comment.pk] == -1 and theirs[comment.pk] == 0


def test_a_closed_thread_refuses_votes(two_units):
    (a, b, c, d, _e), units, _case_id = two_units
    submit(a, units[0])
    for rater in (b, c, d):
        submit(rater, units[1])
    submit(b, units[0])
    case = units[0].response.case
    comment = services.comment_post(user=b.user, case=case, body="先写下的看法")
    Assignment.objects.filter(expert=d).update(status=Assignment.Status.RELEASED)  # slot free
    with pytest.raises(services.KnowledgeError):
        services.comment_vote(user=a.user, comment=comment, value=1)
    with pytest.raises(Http404):
        knowledge.comment_get_for_user(user=a.user, comment_id=comment.pk)


def test_hidden_comments_are_shown_to_staff_only_and_hiding_is_audited(open_thread, staff):
    a, b, _e, case = open_thread
    comment = services.comment_post(user=b.user, case=case, body="不当言论")
    admin = Client()
    admin.force_login(staff)
    changelist = "/admin/annotation/comment/"
    posted = admin.post(changelist, {"action": "hide", "_selected_action": [comment.pk]})
    assert posted.status_code == 302
    comment.refresh_from_db()
    assert comment.is_hidden
    assert AuditEvent.objects.filter(
        action="comment.hide", object_id=str(comment.pk), actor=staff
    ).exists()
    expert_view = knowledge._comments(user=a.user, case_id=case.pk)
    assert comment.pk not in {c.pk for c in expert_view}
    assert comment.pk in {c.pk for c in knowledge._comments(user=staff, case_id=case.pk)}
    with pytest.raises(Http404):
        knowledge.comment_get_for_user(user=a.user, comment_id=comment.pk)
    with pytest.raises(services.KnowledgeError):
        services.comment_vote(user=a.user, comment=comment, value=1)
    assert knowledge.comment_get_for_user(user=staff, comment_id=comment.pk) == comment
    # Hiding twice writes nothing new; showing again is audited too.
    services.comment_set_hidden(comment=comment, hidden=True, actor=staff)
    assert AuditEvent.objects.filter(action="comment.hide").count() == 1
    services.comment_set_hidden(comment=comment, hidden=False, actor=staff)
    assert AuditEvent.objects.filter(action="comment.unhide").count() == 1
    assert comment.pk in {c.pk for c in knowledge._comments(user=a.user, case_id=case.pk)}


def test_authors_are_named_by_display_name_or_as_admin(open_thread, staff):
    a, _b, _e, case = open_thread
    a.display_name = "Dr. Lin"
    a.save(update_fields=["display_name"])
    services.comment_post(user=a.user, case=case, body="expert")
    services.comment_post(user=staff, case=case, body="staff")
    names = [knowledge.author_name(c.author) for c in Comment.objects.order_by("pk")]
    assert names == ["Dr. Lin", "admin"]


# --- FAQ -------------------------------------------------------------------------------


@pytest.fixture
def faq():
    return {
        "lease": FaqEntry.objects.create(
            question="What happens when my Lease expires?",
            answer="The unit goes back to the pool; your draft stays.",
            language="en",
            tags=["workbench", "租约"],
        ),
        "catastrophic": FaqEntry.objects.create(
            question="灾难性失败标准怎么判？",
            answer="只要回应中出现鼓励自伤等内容，就判为命中。",
            language="zh-hans",
            tags=["评分标准", "Safety"],
        ),
        "draft": FaqEntry.objects.create(
            question="草稿会自动保存吗？",
            answer="会，每次标注后都会自动保存。",
            language="zh-hans",
            tags=[],
            is_published=False,
        ),
    }


def _questions(entries) -> list[str]:
    return [e.question for e in entries]


def test_faq_searches_question_answer_and_tags_case_insensitively(faq):
    assert _questions(knowledge.faq_search(query="lease", language="en")) == [faq["lease"].question]
    assert _questions(knowledge.faq_search(query="DRAFT STAYS", language="en")) == [
        faq["lease"].question
    ]
    assert _questions(knowledge.faq_search(query="safety", language="en")) == [
        faq["catastrophic"].question
    ]
    assert knowledge.faq_search(query="nothing-like-this", language="en") == []


def test_faq_finds_chinese_substrings_in_every_field(faq):
    assert _questions(knowledge.faq_search(query="灾难", language="zh-hans")) == [
        faq["catastrophic"].question
    ]
    assert _questions(knowledge.faq_search(query="自伤", language="zh-hans")) == [
        faq["catastrophic"].question
    ]
    assert _questions(knowledge.faq_search(query="评分", language="zh-hans")) == [
        faq["catastrophic"].question
    ]
    assert _questions(knowledge.faq_search(query="租约", language="zh-hans")) == [
        faq["lease"].question
    ]


def test_faq_hides_unpublished_entries_and_lists_the_readers_language_first(faq):
    assert knowledge.faq_search(query="草稿") == []
    zh_first = knowledge.faq_search(language="zh-hans")
    en_first = knowledge.faq_search(language="en")
    assert _questions(zh_first) == [faq["catastrophic"].question, faq["lease"].question]
    assert _questions(en_first) == [faq["lease"].question, faq["catastrophic"].question]


def test_faq_chinese_search_on_postgresql(on_postgres, faq):
    assert _questions(knowledge.faq_search(query="租约", language="en")) == [faq["lease"].question]
    assert _questions(knowledge.faq_search(query="鼓励自伤", language="en")) == [
        faq["catastrophic"].question
    ]


# --- case library ----------------------------------------------------------------------


def test_library_entry_hidden_while_the_reader_may_still_rate_its_case(two_units, staff):
    (a, b, c, d, e), units, _case_id = two_units
    entry = LibraryEntry.objects.create(
        response=units[0].response, title="范例：先共情再探索", note="注意第二句如何承接情绪。"
    )
    draft = LibraryEntry.objects.create(
        response=units[1].response, title="未发布", note="-", is_published=False
    )
    outsider = ExpertFactory()  # in no pool: nothing to rate, sees the entry
    assert knowledge.library_entries_for_user(user=outsider.user) == [entry]
    assert knowledge.library_entries_for_user(user=a.user) == []  # a may still rate the case
    with pytest.raises(Http404):
        knowledge.library_entry_get_for_user(user=a.user, entry_id=entry.pk)
    submit(a, units[0])
    for rater in (b, c, d):
        submit(rater, units[1])
    assert knowledge.library_entries_for_user(user=a.user) == [entry]
    assert knowledge.library_entry_get_for_user(user=a.user, entry_id=entry.pk) == entry
    assert knowledge.library_entries_for_user(user=e.user) == []  # e could take units[0]
    assert knowledge.library_entries_for_user(user=staff) == [entry]
    for user in (staff, outsider.user):
        with pytest.raises(Http404):
            knowledge.library_entry_get_for_user(user=user, entry_id=draft.pk)


# --- demo data -------------------------------------------------------------------------


def test_demo_study_adds_faq_in_both_languages_and_a_library_entry_experts_can_open():
    demo_load()
    call_command("demo_study", stdout=io.StringIO())
    languages = set(FaqEntry.objects.values_list("language", flat=True))
    assert languages == {"zh-hans", "en"}
    entry = LibraryEntry.objects.get()
    assert not entry.response.annotation_units.filter(pool__status="open").exists()
    expert = Expert.objects.get(user__username="demo-expert-1")
    assert knowledge.library_entries_for_user(user=expert.user) == [entry]
    assert knowledge.faq_search(query="租约", language="en")
    before = (FaqEntry.objects.count(), LibraryEntry.objects.count())
    call_command("demo_study", stdout=io.StringIO())
    assert (FaqEntry.objects.count(), LibraryEntry.objects.count()) == before


def test_admin_curates_faq_with_comma_separated_tags_and_library_entries(two_units, staff):
    _experts, units, _case_id = two_units
    admin = Client()
    admin.force_login(staff)
    added = admin.post(
        "/admin/annotation/faqentry/add/",
        {
            "question": "草稿保存在哪里？",
            "answer": "保存在服务器上。",
            "language": "zh-hans",
            "tags": "草稿， workbench, ,租约",
            "is_published": "on",
        },
    )
    assert added.status_code == 302, added.content.decode()[:2000]
    entry = FaqEntry.objects.get()
    assert entry.tags == ["草稿", "workbench", "租约"] and entry.created_by == staff
    assert (
        "草稿, workbench, 租约"
        in admin.get(f"/admin/annotation/faqentry/{entry.pk}/change/").content.decode()
    )
    added = admin.post(
        "/admin/annotation/libraryentry/add/",
        {
            "response": units[0].response.pk,
            "title": "范例",
            "note": "教学说明",
            "is_published": "on",
        },
    )
    assert added.status_code == 302, added.content.decode()[:2000]
    assert LibraryEntry.objects.get().curated_by == staff
    # Comments are moderated, not written or deleted, in the admin.
    assert admin.get("/admin/annotation/comment/add/").status_code == 403


def test_faq_page_searches_and_lists_the_readers_language_first(faq):
    reader = Client()
    reader.force_login(ExpertFactory().user)
    page = reader.get("/faq/", {"q": "租约"}, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert faq["lease"].question in page and faq["catastrophic"].question not in page
    for language, first in (("en", "lease"), ("zh-hans", "catastrophic")):
        page = reader.get("/faq/", HTTP_ACCEPT_LANGUAGE=language).content.decode()
        others = {"lease": "catastrophic", "catastrophic": "lease"}
        assert page.index(faq[first].question) < page.index(faq[others[first]].question)
        assert faq["draft"].question not in page
    outsider = Client()
    outsider.force_login(UserFactory())
    assert outsider.get("/faq/").status_code == 403
