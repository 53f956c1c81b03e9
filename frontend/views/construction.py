"""The construction tiers' pages for experts: /construct/ (the work open to them), one task
page per kind (difficulty, criterion review, senior panel), and the author's revisions.

Views parse, check who asks through annotation's selectors and call a service: the claim and
the answers are ``annotation.services.construction``; the author's edits go through
benchmark's criteria service, the only writer of criteria.
"""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import get_language
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from annotation.models import CriterionReview, DifficultyMark, PanelVote
from annotation.models import TaskKind as Kind
from annotation.selectors import construction as reads
from annotation.services import AnnotationError
from annotation.services import construction as work
from benchmark.models import ABILITY_CHOICES
from benchmark.services.criteria import (
    CriterionError,
    draft_criterion_remove,
    draft_criterion_revise,
)
from benchmark.taxonomy import ability_name
from frontend.views.expert import expert_required

TEMPLATES = {
    Kind.DIFFICULTY: "frontend/construct_difficulty.html",
    Kind.REVIEW: "frontend/construct_review.html",
    Kind.PANEL: "frontend/construct_panel.html",
}


@login_required
@expert_required
def construct_home(request: HttpRequest) -> HttpResponse:
    rows = reads.construction_work_for_expert(user=request.user, now=timezone.now())
    authored = reads.drafts_for_author(user=request.user)
    return render(request, "frontend/construct_home.html", {"rows": rows, "authored": authored})


@login_required
@expert_required
@require_POST
def construct_start(request: HttpRequest, work_id: int) -> HttpResponse:
    try:
        opened = reads.work_get_open(work_id=work_id)
    except reads.TaskNotFound as exc:
        raise Http404 from exc
    try:
        task = work.construction_task_claim_next(
            user=request.user, project=opened.project, kind=opened.kind
        )
    except AnnotationError as exc:
        messages.error(request, str(exc))
        return redirect("frontend:construct")
    if task is None:
        messages.info(request, _("Nothing is left for you in this work. Thank you."))
        return redirect("frontend:construct")
    return redirect("frontend:construct-task", task_id=task.pk)


@login_required
@expert_required
def construct_task(request: HttpRequest, task_id: int) -> HttpResponse:
    try:
        task = reads.task_get_for_expert(user=request.user, task_id=task_id)
    except reads.TaskNotFound as exc:
        raise Http404 from exc
    error, posted = "", request.POST
    if request.method == "POST":
        try:
            _submit(request, task)
        except AnnotationError as exc:
            error = str(exc)
        else:
            messages.success(request, _("Saved. Here is the next one."))
            return construct_start(request, work_id=task.work_id)
    draft = task.draft
    context = {
        "task": task,
        "draft": draft,
        "dialogue": reads.draft_dialogue(draft=draft),
        "posted": posted,
        "error": error,
        "language": get_language(),
    }
    if task.kind == Kind.DIFFICULTY:
        context["reasons"] = DifficultyMark.Reason.choices
    if task.kind == Kind.REVIEW:
        context["criteria"] = [
            _criterion_row(c, posted) for c in reads.criteria_active(draft=draft)
        ]
        context["verdicts"] = CriterionReview.Verdict.choices
    if task.kind == Kind.PANEL:
        context["criteria"] = [
            {**row, **_criterion_row(row["criterion"], posted)}
            for row in reads.criteria_with_reviews(draft=draft)
        ]
        context["returns"] = reads.panel_returns(draft=draft)
        context["votes"] = PanelVote.Vote.choices
    return render(request, TEMPLATES[task.kind], context, status=400 if error else 200)


def _criterion_row(criterion, posted) -> dict:
    return {
        "criterion": criterion,
        "ability": ability_name(criterion.ability, language=get_language()),
        "verdict": posted.get(f"verdict-{criterion.pk}", ""),
        "comment": posted.get(f"comment-{criterion.pk}", ""),
    }


def _int(text: str | None) -> int | None:
    return int(text) if text and text.isdigit() else None


def _submit(request: HttpRequest, task) -> None:
    data = request.POST
    if task.kind == Kind.DIFFICULTY:
        work.difficulty_mark_submit(
            user=request.user,
            task_id=task.pk,
            difficulty=data.get("difficulty", ""),
            reason=data.get("reason", ""),
            comment=data.get("comment", ""),
        )
    elif task.kind == Kind.REVIEW:
        ids = reads.criteria_active(draft=task.draft).values_list("pk", flat=True)
        verdicts = {
            pk: (data.get(f"verdict-{pk}", ""), data.get(f"comment-{pk}", "")) for pk in ids
        }
        versions = {pk: _int(data.get(f"version-{pk}")) for pk in ids}
        work.criterion_review_submit(
            user=request.user, task_id=task.pk, verdicts=verdicts, versions=versions
        )
    else:
        work.panel_vote_submit(
            user=request.user,
            task_id=task.pk,
            vote=data.get("vote", ""),
            reason=data.get("reason", ""),
        )


@login_required
@expert_required
def construct_revisions(request: HttpRequest) -> HttpResponse:
    context = {
        "drafts": reads.drafts_for_author(user=request.user),
        "abilities": [(code, ability_name(code, language=get_language()))
                      for code, _label in ABILITY_CHOICES],
    }  # fmt: skip
    return render(request, "frontend/construct_revisions.html", context)


@login_required
@expert_required
@require_POST
def construct_criterion_edit(request: HttpRequest, criterion_id: int) -> HttpResponse:
    try:
        criterion = reads.criterion_for_author(user=request.user, criterion_id=criterion_id)
    except reads.TaskNotFound as exc:
        raise Http404 from exc
    data = request.POST
    try:
        if data.get("action") == "remove":
            draft_criterion_remove(
                criterion=criterion, stage="review", reason=data.get("reason", ""),
                actor=request.user,
            )  # fmt: skip
            messages.success(request, _("Criterion removed."))
        else:
            points = data.get("points", "").strip()
            revised = draft_criterion_revise(
                criterion=criterion,
                text=data.get("text", ""),
                points=int(points) if points.lstrip("-").isdigit() else (points or None),
                ability=data.get("ability", ""),
                author=request.user,
                reason=data.get("reason", ""),
            )
            messages.success(
                request, _("Saved as version %(number)d.") % {"number": revised.version}
            )
    except CriterionError as exc:
        messages.error(request, str(exc))
    return redirect(f"{reverse('frontend:construct-revisions')}#draft-{criterion.draft_id}")


@login_required
@expert_required
@require_POST
def construct_send(request: HttpRequest, draft_id: int) -> HttpResponse:
    try:
        draft = reads.draft_for_author(user=request.user, draft_id=draft_id)
    except reads.TaskNotFound as exc:
        raise Http404 from exc
    try:
        panel_round = work.panel_send(user=request.user, draft=draft)
    except AnnotationError as exc:
        messages.error(request, str(exc))
    else:
        messages.success(
            request, _("Sent to the senior panel (round %(n)d).") % {"n": panel_round.number}
        )
    return redirect(f"{reverse('frontend:construct-revisions')}#draft-{draft_id}")
