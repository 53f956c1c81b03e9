"""Reads for discussion threads, the FAQ and the case library, scoped to the asking user.

Blindness is the reason this module exists as one place. A thread about case C carries other
raters' opinions of C's criteria, and a library entry shows a curated response to C with a
teaching note; either would steer an expert who can still rate C. So an expert reads C's
threads only when they have submitted a unit of C **and** no rating work on C is still
possible for them (``cases_pending_for_expert``); a library entry is hidden while its case is
pending for the reader. Staff read everything. Anything else is "not found".
"""

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from django.conf import settings
from django.db.models import Count, Exists, F, IntegerField, OuterRef, Q, QuerySet, Subquery, Sum
from django.db.models.functions import Coalesce
from django.http import Http404
from django.utils import timezone
from django.utils.translation import get_language
from django.utils.translation import gettext_lazy as _

from annotation.blinding import criterion_token, shuffled
from annotation.models import (
    Assignment,
    Comment,
    CommentVote,
    Expert,
    FaqEntry,
    LibraryEntry,
    Pool,
    Submission,
    Unit,
)
from annotation.selectors import NotAnExpert, blind_dialogue, expert_for_user
from benchmark.models import Case
from benchmark.selectors.rubric import case_criteria

ADMIN_AUTHOR = _("admin")


def is_staff(user) -> bool:
    return bool(user.is_authenticated and user.is_staff)


def reader_expert(*, user) -> Expert | None:
    """The reader's expert profile; None for staff; NotAnExpert for everyone else."""
    if is_staff(user):
        return None
    return expert_for_user(user=user)


# --- the visibility rule ---------------------------------------------------------------


def _restrict(units: QuerySet[Unit], case_ids: Iterable[int] | None) -> QuerySet[Unit]:
    return units if case_ids is None else units.filter(response__case_id__in=list(case_ids))


def cases_pending_for_expert(
    *, expert: Expert, case_ids: Iterable[int] | None = None, now: datetime | None = None
) -> set[int]:
    """Cases on which this expert may still be handed rating work (of those in ``case_ids``).

    A unit of an open study pool the expert belongs to is pending unless the expert submitted
    it or it is full (as many active raters as the pool asks for) without a lease of theirs.
    A lease past its expiry counts as free: the sweep will hand that slot out again.
    Calibration units (of open calibration pools the expert belongs to or is sent to by an
    open pool) are pending until the expert has submitted them once. For a senior expert, a
    unit of a pool they belong to that waits for adjudication is pending until it is
    adjudicated, so the senior decides blind to what the raters said in the threads.
    """
    now = now or timezone.now()
    case_ids = None if case_ids is None else list(case_ids)
    study_pools = Pool.objects.filter(
        experts=expert, status=Pool.Status.OPEN, calibration_set__isnull=True
    )
    mine = Assignment.objects.filter(expert=expert, kind=Assignment.Kind.RATING).order_by()
    # Units of the expert's open studies (on the asked cases) they have not submitted. A
    # correlated count per unit made PostgreSQL count every unit of every study before
    # filtering by case; a grouped count over just these units does not.
    candidates = (
        _restrict(Unit.objects.filter(pool__in=study_pools), case_ids)
        .exclude(pk__in=mine.filter(status=Assignment.Status.SUBMITTED).values("unit_id"))
        .order_by()
    )
    held = mine.filter(status=Assignment.Status.LEASED).values("unit_id")
    holding = Q(assignments__kind=Assignment.Kind.RATING) & (
        Q(assignments__status=Assignment.Status.SUBMITTED)
        | Q(assignments__status=Assignment.Status.LEASED, assignments__lease_expires_at__gt=now)
    )
    # Only the under-filled units come back (a grouped count with HAVING), not every unit.
    open_slots = (
        candidates.annotate(taken=Count("assignments", filter=holding))
        .filter(taken__lt=F("pool__raters_per_unit"))
        .values_list("response__case_id", flat=True)
    )
    pending = set(open_slots)
    pending |= set(candidates.filter(pk__in=held).values_list("response__case_id", flat=True))

    calibration_pools = Pool.objects.filter(
        Q(experts=expert)
        | Q(
            calibration_set__required_by__experts=expert,
            calibration_set__required_by__status=Pool.Status.OPEN,
        ),
        status=Pool.Status.OPEN,
        calibration_set__isnull=False,
    )
    calibration_units = _restrict(
        Unit.objects.filter(pool__in=calibration_pools), case_ids
    ).exclude(
        Exists(
            Assignment.objects.filter(
                unit=OuterRef("pk"),
                expert=expert,
                kind=Assignment.Kind.CALIBRATION,
                status=Assignment.Status.SUBMITTED,
            )
        )
    )
    pending |= set(calibration_units.values_list("response__case_id", flat=True))

    if expert.is_senior:
        waiting = _restrict(
            Unit.objects.filter(
                pool__experts=expert,
                pool__status__in=[Pool.Status.OPEN, Pool.Status.CLOSED],
                needs_adjudication=True,
            ),
            case_ids,
        ).exclude(
            Exists(
                Submission.objects.filter(unit=OuterRef("pk"), kind=Assignment.Kind.ADJUDICATION)
            )
        )
        pending |= set(waiting.values_list("response__case_id", flat=True))
    return pending


def cases_submitted_by_expert(*, expert: Expert, case_ids: Iterable[int] | None = None) -> set[int]:
    submissions = Submission.objects.filter(expert=expert)
    if case_ids is not None:
        submissions = submissions.filter(unit__response__case_id__in=list(case_ids))
    return set(submissions.values_list("unit__response__case_id", flat=True))


def cases_open_for_discussion(*, user, case_ids: Iterable[int]) -> set[int]:
    """Of ``case_ids``, the cases whose threads this user may read and post in."""
    case_ids = set(case_ids)
    if is_staff(user):
        return case_ids
    try:
        expert = expert_for_user(user=user)
    except NotAnExpert:
        return set()
    done = cases_submitted_by_expert(expert=expert, case_ids=case_ids)
    if not done:
        return set()
    return done - cases_pending_for_expert(expert=expert, case_ids=done)


def unit_tokens_open_for_discussion(*, user, unit_ids: Iterable[int]) -> set[str]:
    """Tokens of the given units whose discussion page is open to this user (for links)."""
    rows = list(
        Unit.objects.filter(pk__in=list(unit_ids)).values_list("token", "response__case_id")
    )
    open_cases = cases_open_for_discussion(user=user, case_ids={case for _, case in rows})
    return {token for token, case in rows if case in open_cases}


def case_open_for_discussion(*, user, case: Case) -> bool:
    return case.pk in cases_open_for_discussion(user=user, case_ids=[case.pk])


# --- discussion pages ------------------------------------------------------------------


@dataclass(frozen=True)
class CommentView:
    id: int
    author: str
    body: str
    created_at: datetime
    score: int
    my_vote: int
    is_hidden: bool
    is_mine: bool


@dataclass(frozen=True)
class Thread:
    # Opaque per-reader criterion id, or "" for the thread on the whole case.
    id: str
    text: str
    comments: list[CommentView]


@dataclass(frozen=True)
class Discussion:
    token: str
    case_id: int
    dialogue: list[dict[str, str]]
    response: str
    case_thread: Thread
    criteria: list[Thread]


def _reader_key(*, user, case_id: int) -> str:
    # Criterion ids on a discussion page are per reader and case: stable across reloads,
    # meaningless elsewhere, and never the rubric position or database key.
    return f"discuss:{user.pk}:{case_id}"


def criterion_ids_for_reader(*, user, case_id: int) -> dict[str, int]:
    """Opaque criterion id on this reader's discussion page → RubricItem pk."""
    key = _reader_key(user=user, case_id=case_id)
    return {
        criterion_token(secret=settings.SECRET_KEY, assignment_key=key, criterion_pk=pk): pk
        for pk in case_criteria(case_id=case_id).values_list("pk", flat=True)
    }


def unit_get_for_discussion(*, user, token: str) -> tuple[Unit, Assignment | None]:
    """The unit behind a discussion page, with the reader's own submitted assignment on it.

    Experts reach only units they submitted, and only once the case is open to them; staff
    reach any unit (with no assignment of their own). Everything else is 404.
    """
    expert = reader_expert(user=user)
    units = Unit.objects.select_related("response__case", "pool")
    if expert is None:
        unit = units.filter(token=token).first()
        if unit is None:
            raise Http404("no such unit")
        return unit, None
    assignment = (
        Assignment.objects.select_related("unit__response__case", "unit__pool")
        .filter(unit__token=token, expert=expert, status=Assignment.Status.SUBMITTED)
        .order_by("-submitted_at", "-id")
        .first()
    )
    if assignment is None or not case_open_for_discussion(
        user=user, case=assignment.unit.response.case
    ):
        raise Http404("no such discussion")
    return assignment.unit, assignment


def _comments(*, user, case_id: int) -> QuerySet[Comment]:
    comments = Comment.objects.filter(case_id=case_id).select_related("author__expert")
    if not is_staff(user):
        comments = comments.filter(is_hidden=False)
    mine = CommentVote.objects.filter(comment=OuterRef("pk"), user_id=user.pk).values("value")
    return comments.annotate(
        score=Coalesce(Sum("votes__value"), 0),
        my_vote=Coalesce(Subquery(mine[:1], output_field=IntegerField()), 0),
    ).order_by("created_at", "id")


def author_name(author) -> str:
    """Experts by display name; staff and anyone without an expert profile as "admin"."""
    expert = getattr(author, "expert", None)
    if author.is_staff or expert is None:
        return str(ADMIN_AUTHOR)
    return expert.display_name or author.get_username()


def discussion_get(*, user, unit: Unit, assignment: Assignment | None) -> Discussion:
    """The page for ``unit`` (already fetched with ``unit_get_for_discussion``).

    Criteria come in the expert's own shuffled order from their assignment (canonical order
    for staff), as text only: no points, no ability, no verdict, no model.
    """
    case = unit.response.case
    by_item: dict[int | None, list[CommentView]] = {}
    for c in _comments(user=user, case_id=case.pk):
        by_item.setdefault(c.rubric_item_id, []).append(
            CommentView(
                id=c.pk,
                author=author_name(c.author),
                body=c.body,
                created_at=c.created_at,
                score=c.score,
                my_vote=c.my_vote,
                is_hidden=c.is_hidden,
                is_mine=c.author_id == user.pk,
            )
        )
    ids = {pk: cid for cid, pk in criterion_ids_for_reader(user=user, case_id=case.pk).items()}
    items = list(case_criteria(case_id=case.pk).order_by("position", "pk"))
    if assignment is not None:
        items = shuffled(items, seed=assignment.shuffle_seed)
    return Discussion(
        token=unit.token,
        case_id=case.pk,
        dialogue=blind_dialogue(case=case),
        response=unit.response.text,
        case_thread=Thread(id="", text="", comments=by_item.get(None, [])),
        criteria=[
            Thread(id=ids[item.pk], text=item.text, comments=by_item.get(item.pk, []))
            for item in items
        ],
    )


def comment_get_for_user(*, user, comment_id: int | str) -> Comment:
    """A comment the user may see and vote on; otherwise 404."""
    try:
        key = int(comment_id)
    except (TypeError, ValueError) as exc:
        raise Http404("no such comment") from exc
    comments = Comment.objects.select_related("case")
    if not is_staff(user):
        comments = comments.filter(is_hidden=False)
    comment = comments.filter(pk=key).first()
    if comment is None or not case_open_for_discussion(user=user, case=comment.case):
        raise Http404("no such comment")
    return comment


# --- FAQ -------------------------------------------------------------------------------


def _matches(entry: FaqEntry, terms: list[str]) -> bool:
    haystack = " ".join([entry.question, entry.answer, *map(str, entry.tags or [])]).casefold()
    return all(term in haystack for term in terms)


def faq_entries_asking(*, questions) -> QuerySet[FaqEntry]:
    """The FAQ entries whose question is one of these, word for word."""
    return FaqEntry.objects.filter(question__in=questions)


def faq_search(*, query: str = "", language: str | None = None) -> list[FaqEntry]:
    """Published entries matching every word of ``query`` in question, answer or tags,
    the reader's language first.

    Matching happens in Python with ``casefold``: tags are JSON, which SQLite stores with
    Chinese escaped as ``\\uXXXX`` (so a database LIKE on them misses Chinese), and SQLite's
    LIKE folds ASCII case only. The FAQ is a hand-curated list of tens of entries, so reading
    the published ones is cheap and behaves the same on SQLite and PostgreSQL.
    """
    language = (language or get_language() or settings.LANGUAGE_CODE).lower()
    primary = language.split("-")[0]
    terms = [t.casefold() for t in query.split() if t.strip()]
    entries = [e for e in FaqEntry.objects.filter(is_published=True) if _matches(e, terms)]
    return sorted(
        entries,
        key=lambda e: (e.language.lower().split("-")[0] != primary, e.question.casefold(), e.pk),
    )


# --- case library ----------------------------------------------------------------------


def library_entries_for_user(*, user) -> list[LibraryEntry]:
    """Published entries the reader may see: all for staff; for an expert, those whose case
    they can no longer be asked to rate."""
    expert = reader_expert(user=user)
    entries = list(LibraryEntry.objects.filter(is_published=True).select_related("response__case"))
    if expert is None:
        return entries
    pending = cases_pending_for_expert(
        expert=expert, case_ids={e.response.case_id for e in entries}
    )
    return [e for e in entries if e.response.case_id not in pending]


def library_entry_get_for_user(*, user, entry_id: int | str) -> LibraryEntry:
    try:
        key = int(entry_id)
    except (TypeError, ValueError) as exc:
        raise Http404("no such entry") from exc
    expert = reader_expert(user=user)
    entry = (
        LibraryEntry.objects.filter(pk=key, is_published=True)
        .select_related("response__case", "response__model")
        .first()
    )
    if entry is None:
        raise Http404("no such entry")
    if expert is not None and entry.response.case_id in cases_pending_for_expert(
        expert=expert, case_ids=[entry.response.case_id]
    ):
        raise Http404("no such entry")
    return entry


def library_dialogue(*, entry: LibraryEntry) -> list[dict[str, str]]:
    return blind_dialogue(case=entry.response.case)
