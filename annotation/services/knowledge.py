"""Writes for discussion threads (posts, votes, moderation) and the demo FAQ and library.

The FAQ and the case library are curated by admins in the Django admin; the only writes
here are the ones experts make, the moderator's hide/unhide (audited), and the demo data.
Every expert write checks the visibility rule again (``selectors_knowledge``) rather than
trusting that the view fetched through it, so a service called from elsewhere stays blind.
"""

import json
from pathlib import Path

from django.db import IntegrityError, transaction
from django.utils.translation import gettext as _

from annotation.audit_actions import AnnotationAction
from annotation.models import Comment, CommentVote, FaqEntry, LibraryEntry, Pool, Unit
from annotation.selectors import knowledge as selectors_knowledge
from annotation.services.errors import AnnotationError
from benchmark.models import Case, Dataset, RubricItem
from benchmark.selectors.responses import response_find
from benchmark.services.audit import audit_record
from config.locks import row_lock

MAX_COMMENT_CHARS = 5000


class KnowledgeError(AnnotationError):
    """A discussion write the rules refuse (empty post, vote on one's own comment...)."""


def _check_open(*, user, case: Case) -> None:
    if not selectors_knowledge.case_open_for_discussion(user=user, case=case):
        # The same answer as for a case that does not exist: nothing leaks.
        raise KnowledgeError(_("This discussion is not open to you."))


def comment_post(*, user, case: Case, body: str, rubric_item: RubricItem | None = None) -> Comment:
    """Post in the thread of ``case`` (or of one of its criteria)."""
    text = (body or "").strip()
    if not text:
        raise KnowledgeError(_("Write something before posting."))
    if len(text) > MAX_COMMENT_CHARS:
        raise KnowledgeError(
            _("A comment is at most %(limit)d characters.") % {"limit": MAX_COMMENT_CHARS}
        )
    if rubric_item is not None and rubric_item.case_id != case.pk:
        raise KnowledgeError(_("That criterion belongs to another case."))
    with transaction.atomic():
        _check_open(user=user, case=case)
        return Comment.objects.create(case=case, rubric_item=rubric_item, author=user, body=text)


def comment_vote(*, user, comment: Comment, value: int) -> CommentVote | None:
    """Vote +1 or -1 on a comment, change the vote, or remove it with 0.

    One vote per user and comment (the database holds that too). Nobody votes on their own
    comment, and only staff touch hidden ones.
    """
    if value not in (-1, 0, 1):
        raise KnowledgeError(_("A vote is +1, -1 or 0 (remove)."))
    if comment.author_id == user.pk:
        raise KnowledgeError(_("You cannot vote on your own comment."))
    if comment.is_hidden and not selectors_knowledge.is_staff(user):
        raise KnowledgeError(_("This discussion is not open to you."))
    with transaction.atomic():
        _check_open(user=user, case=comment.case)
        if value == 0:
            CommentVote.objects.filter(comment=comment, user=user).delete()
            return None
        try:
            # A double click races two inserts; the loser updates the winner's row.
            with transaction.atomic():
                vote, _created = CommentVote.objects.update_or_create(
                    comment=comment, user=user, defaults={"value": value}
                )
        except IntegrityError:
            CommentVote.objects.filter(comment=comment, user=user).update(value=value)
            vote = CommentVote.objects.get(comment=comment, user=user)
    return vote


def comment_set_hidden(*, comment: Comment, hidden: bool, actor) -> Comment:
    """Hide a comment from everyone but staff (or show it again); audited."""
    with transaction.atomic():
        comment = row_lock(Comment, comment.pk)
        if comment.is_hidden == hidden:
            return comment
        comment.is_hidden = hidden
        comment.save(update_fields=["is_hidden"])
        audit_record(
            actor=actor,
            action=AnnotationAction.COMMENT_HIDE if hidden else AnnotationAction.COMMENT_UNHIDE,
            obj=comment,
            data={"case": comment.case_id, "rubric_item": comment.rubric_item_id},
        )
    return comment


def knowledge_demo_load(*, path: Path, dataset: Dataset, actor=None) -> list[str]:
    """Demo FAQ entries and one library entry from ``path`` (original demo text).

    Idempotent: an FAQ entry is matched by its question, and the library entry is added only
    when the dataset has none. The library lists candidates (case, model, title, note); the
    first whose case no open pool holds is taken, so demo experts can open it at once (when
    every candidate's case is in a study, the first candidate).
    """
    content = json.loads(Path(path).read_text(encoding="utf-8"))
    created: list[str] = []
    with transaction.atomic():
        for row in content.get("faq", []):
            _entry, made = FaqEntry.objects.get_or_create(
                question=row["question"],
                defaults={
                    "answer": row["answer"],
                    "language": row["language"],
                    "tags": list(row.get("tags", [])),
                    "created_by": actor,
                },
            )
            if made:
                created.append(f"FAQ ({row['language']})")
        if LibraryEntry.objects.filter(response__case__dataset=dataset).exists():
            return created
        in_pools = set(
            Unit.objects.filter(
                pool__status=Pool.Status.OPEN, response__case__dataset=dataset
            ).values_list("response__case__question_id", flat=True)
        )
        candidates = []
        for row in content.get("library", []):
            response = response_find(
                dataset=dataset, question_id=row["question_id"], model=row["model"]
            ).first()
            if response is not None:
                candidates.append((row["question_id"] in in_pools, response, row))
        if candidates:
            _busy, response, row = min(candidates, key=lambda c: c[0])
            LibraryEntry.objects.create(
                response=response, title=row["title"], note=row["note"], curated_by=actor
            )
            created.append("library entry")
    return created
