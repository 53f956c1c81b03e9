"""Self-validation's pages: the rubric author mock-scores a draft's chosen reference answers
(keyboard or mouse), then sees each label beside the judge's verdict and may revise a
criterion from there. Who may do what is decided by ``annotation.selectors.selfcheck``: the
author labels and revises, staff read, anyone else gets 404."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import get_language
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from annotation.selectors.selfcheck import (
    selfcheck_chosen_count,
    selfcheck_comparison,
    selfcheck_criteria,
    selfcheck_dialogue,
    selfcheck_draft_get,
    selfcheck_drafts,
    selfcheck_response_get,
    selfcheck_saved_labels,
    selfcheck_submitted,
)
from annotation.selfcheck import MOCK_RESPONSES_PER_DRAFT
from annotation.services.selfcheck import SelfcheckError, mock_scores_save, mock_scores_submit
from benchmark.services.criteria import CriterionError, draft_criterion_revise
from benchmark.taxonomy import ability_name

LABEL_FIELD = "criterion-"


def _criteria_rows(criteria, labels=None) -> list[dict]:
    language = get_language()
    return [
        {
            "criterion": criterion,
            "ability": ability_name(criterion.ability, language=language),
            "met": (labels or {}).get(criterion.pk),
        }
        for criterion in criteria
    ]


@login_required
def selfcheck_home(request: HttpRequest) -> HttpResponse:
    drafts = list(selfcheck_drafts(user=request.user))
    for draft in drafts:
        draft.chosen_count = selfcheck_chosen_count(reference_count=draft.reference_count)
    context = {"drafts": drafts, "per_draft": MOCK_RESPONSES_PER_DRAFT}
    return render(request, "frontend/selfcheck.html", context)


@login_required
def selfcheck_draft(request: HttpRequest, draft_id: int) -> HttpResponse:
    draft = selfcheck_draft_get(user=request.user, draft_id=draft_id)
    context = {
        "draft": draft,
        "dialogue": selfcheck_dialogue(draft=draft),
        "comparisons": selfcheck_comparison(draft=draft),
        "criteria": _criteria_rows(selfcheck_criteria(draft=draft)),
        "is_author": draft.author_id == request.user.pk,
    }
    return render(request, "frontend/selfcheck_draft.html", context)


def _posted_labels(request: HttpRequest) -> dict[int, bool]:
    """``criterion-<id>`` = "1" (met) or "0" (not met); anything else is refused."""
    labels = {}
    for key, value in request.POST.items():
        if not key.startswith(LABEL_FIELD):
            continue
        if not key.removeprefix(LABEL_FIELD).isdigit() or value not in ("0", "1"):
            raise SelfcheckError(_("A label is met (1) or not met (0)."))
        labels[int(key.removeprefix(LABEL_FIELD))] = value == "1"
    return labels


@login_required
def selfcheck_label(request: HttpRequest, draft_id: int, response_id: int) -> HttpResponse:
    draft = selfcheck_draft_get(user=request.user, draft_id=draft_id, labelling=True)
    response, letter = selfcheck_response_get(draft=draft, response_id=response_id)
    done = reverse("frontend:selfcheck-draft", args=[draft.pk]) + f"#response-{response.pk}"
    if selfcheck_submitted(response=response, author=request.user):
        return redirect(done)
    error, posted = "", {}
    if request.method == "POST":
        try:
            posted = _posted_labels(request)
            write = (
                mock_scores_submit if request.POST.get("action") == "submit" else mock_scores_save
            )
            write(draft=draft, response=response, author=request.user, labels=posted)
        except SelfcheckError as exc:
            error = str(exc)
        else:
            if request.POST.get("action") == "submit":
                messages.success(request, _("Submitted: the judge's verdicts are shown below."))
                return redirect(done)
            if request.POST.get("action") == "autosave":
                return HttpResponse(status=204)
            messages.success(request, _("Your labels are saved."))
            return redirect(request.path)
    labels = {**selfcheck_saved_labels(response=response, author=request.user), **posted}
    context = {
        "draft": draft,
        "response": response,
        "letter": letter,
        "dialogue": selfcheck_dialogue(draft=draft, response=response),
        "criteria": _criteria_rows(selfcheck_criteria(draft=draft), labels),
        "error": error,
    }
    return render(request, "frontend/selfcheck_label.html", context, status=400 if error else 200)


def _points(value: str) -> int | None:
    value = value.strip()
    if not value:
        return None
    try:
        return int(value)
    except ValueError:
        raise CriterionError(_("Points are a whole number.")) from None


@login_required
@require_POST
def selfcheck_revise(request: HttpRequest, draft_id: int, criterion_id: int) -> HttpResponse:
    draft = selfcheck_draft_get(user=request.user, draft_id=draft_id, labelling=True)
    criterion = next((c for c in selfcheck_criteria(draft=draft) if c.pk == criterion_id), None)
    if criterion is None:
        raise Http404
    try:
        revised = draft_criterion_revise(
            criterion=criterion,
            text=request.POST.get("text", "").replace("\r\n", "\n"),
            points=_points(request.POST.get("points", "")),
            ability=criterion.ability,
            author=request.user,
            reason=request.POST.get("reason", ""),
        )
    except CriterionError as exc:
        messages.error(
            request,
            _("Criterion %(position)d was not revised: %(reason)s")
            % {"position": criterion.position + 1, "reason": exc},
        )
    else:
        messages.success(
            request,
            _("Criterion %(position)d is now version %(version)d.")
            % {"position": revised.position + 1, "version": revised.version},
        )
    return redirect(reverse("frontend:selfcheck-draft", args=[draft.pk]) + "#criteria")
