"""Looking back at submitted work: the expert's completed list, one unit's review (revise or
flag), and the senior's answer to a flag.

Plain forms, no script: these pages are read far more than written.
"""

from dataclasses import replace

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext

from annotation import selectors, services
from annotation.labels import InvalidLabels
from annotation.selectors import knowledge as selectors_knowledge
from annotation.selectors import review as selectors_review
from frontend.views.expert import expert_required
from validation import selectors as validation_selectors


@login_required
@expert_required
def completed(request: HttpRequest) -> HttpResponse:
    query = request.GET.get("q", "")
    page = selectors_review.completed_page(
        user=request.user, number=request.GET.get("page"), query=query
    )
    rows = list(page.object_list)
    # A discussion link only where the thread is open (no rating work left on the case).
    discuss = selectors_knowledge.unit_tokens_open_for_discussion(
        user=request.user, unit_ids={r.assignment.unit_id for r in rows}
    )
    context = {"rows": rows, "page": page, "discuss": discuss, "query": query.strip()}
    return render(request, "frontend/completed.html", context)


def _posted_labels(request: HttpRequest, review: selectors_review.SubmissionReview) -> list[dict]:
    """The revise form's fields as the API's label list; an unmarked criterion is left out,
    so the check names how many are missing."""
    marks = {"1": True, "0": False}
    return [
        {
            "criterion": label.id,
            "hit": marks[request.POST[f"hit-{label.id}"]],
            "note": request.POST.get(f"note-{label.id}", ""),
        }
        for label in review.labels
        if request.POST.get(f"hit-{label.id}") in marks
    ]


@login_required
@expert_required
def submitted_unit(request: HttpRequest, assignment_id: str) -> HttpResponse:
    review = selectors_review.submission_review_for_expert(
        user=request.user, public_id=assignment_id
    )
    if request.method == "POST":
        action = request.POST.get("action")
        try:
            if action == "revise":
                _, changed = services.submission_revise(
                    user=request.user,
                    assignment=review.assignment,
                    labels=_posted_labels(request, review),
                )
                messages.success(
                    request,
                    gettext("Your revision is saved; the earlier version is kept.")
                    if changed
                    else gettext("Nothing changed: your labels were already these."),
                )
            elif action == "flag":
                services.submission_flag(
                    user=request.user,
                    assignment=review.assignment,
                    reason=request.POST.get("reason", ""),
                )
                messages.success(request, gettext("Flagged: a senior expert will look at it."))
            else:
                return HttpResponse(status=400)
        except (services.AnnotationError, InvalidLabels) as exc:
            # The page again with what the expert sent, so nothing typed is lost.
            context = {
                "review": review,
                "labels": _posted_shown(request, review),
                "error": str(exc),
                "posted": request.POST,
            }
            return render(request, "frontend/submitted_unit.html", context, status=400)
        return redirect("frontend:submitted-unit", assignment_id=review.assignment.public_id)
    return render(
        request, "frontend/submitted_unit.html", {"review": review, "labels": review.labels}
    )


def _posted_shown(
    request: HttpRequest, review: selectors_review.SubmissionReview
) -> list[selectors_review.LabelShown]:
    if request.POST.get("action") != "revise":
        return review.labels
    sent = {label["criterion"]: label for label in _posted_labels(request, review)}
    return [
        replace(
            label,
            hit=sent[label.id]["hit"] if label.id in sent else None,
            note=request.POST.get(f"note-{label.id}", ""),
        )
        for label in review.labels
    ]


@login_required
def flag_answer(request: HttpRequest, flag_id: int) -> HttpResponse:
    try:
        shown = selectors_review.flag_get_for_senior(user=request.user, flag_id=flag_id)
    except selectors.NotAnExpert:
        return render(request, "frontend/not_senior.html", status=403)
    if request.method == "POST":
        verdict = request.POST.get("verdict")
        if verdict not in ("upheld", "dismissed"):
            return HttpResponse(status=400)
        try:
            services.flag_answer(
                user=request.user,
                flag_id=flag_id,
                upheld=verdict == "upheld",
                answer=request.POST.get("answer", ""),
            )
        except services.AnnotationError as exc:
            context = _flag_context(shown) | {"error": str(exc), "posted": request.POST}
            return render(request, "frontend/flag.html", context, status=400)
        messages.success(request, gettext("Your answer is recorded."))
        return redirect("frontend:adjudication-home")
    return render(request, "frontend/flag.html", _flag_context(shown))


def _flag_context(shown: selectors_review.FlagForSenior) -> dict:
    """The flag with the unit's gold beside each of the rater's labels."""
    gold = validation_selectors.unit_gold(unit_id=shown.flag.submission.unit_id)
    rows = [(label, gold.get(item)) for label, item in zip(shown.labels, shown.items, strict=True)]
    return {"shown": shown, "rows": rows}
