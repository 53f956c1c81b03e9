"""Pages for discussion threads, the FAQ and the case library.

Thin: who is asking, a scoped fetch through ``annotation.selectors.knowledge`` (which holds
the blindness rule and answers 404 for anything the reader may not see), a service call for
writes, a render or a redirect back to the thread.
"""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from annotation import services
from annotation.selectors import NotAnExpert, knowledge
from benchmark.selectors.rubric import case_criteria


def _reader_allowed(request: HttpRequest) -> bool:
    """Experts and staff read these pages; other logins get the "not an expert" page."""
    try:
        knowledge.reader_expert(user=request.user)
    except NotAnExpert:
        return False
    return True


def _not_expert(request: HttpRequest) -> HttpResponse:
    return render(request, "frontend/not_expert.html", status=403)


def _thread_url(token: str, thread: str = "") -> str:
    anchor = f"#thread-{thread}" if thread else "#thread-case"
    return reverse("frontend:discussion", args=[token]) + anchor


@login_required
@require_GET
def discussion(request: HttpRequest, token: str) -> HttpResponse:
    if not _reader_allowed(request):
        return _not_expert(request)
    unit, assignment = knowledge.unit_get_for_discussion(user=request.user, token=token)
    page = knowledge.discussion_get(user=request.user, unit=unit, assignment=assignment)
    return render(
        request,
        "frontend/discussion.html",
        {"discussion": page, "is_staff": knowledge.is_staff(request.user)},
    )


@login_required
@require_POST
def discussion_post(request: HttpRequest, token: str) -> HttpResponse:
    if not _reader_allowed(request):
        return _not_expert(request)
    unit, _assignment = knowledge.unit_get_for_discussion(user=request.user, token=token)
    case = unit.response.case
    criterion = request.POST.get("criterion", "")
    rubric_item = None
    if criterion:
        pk = knowledge.criterion_ids_for_reader(user=request.user, case_id=case.pk).get(criterion)
        if pk is None:
            raise Http404("no such criterion")
        rubric_item = case_criteria(case_id=case.pk).get(pk=pk)
    try:
        services.comment_post(
            user=request.user, case=case, rubric_item=rubric_item, body=request.POST.get("body", "")
        )
    except services.KnowledgeError as exc:
        messages.error(request, str(exc))
    return redirect(_thread_url(token, criterion))


@login_required
@require_POST
def discussion_vote(request: HttpRequest, token: str, comment_id: int) -> HttpResponse:
    if not _reader_allowed(request):
        return _not_expert(request)
    unit, _assignment = knowledge.unit_get_for_discussion(user=request.user, token=token)
    comment = knowledge.comment_get_for_user(user=request.user, comment_id=comment_id)
    if comment.case_id != unit.response.case_id:
        raise Http404("no such comment")
    try:
        value = int(request.POST.get("value", ""))
    except ValueError:
        value = 2  # refused by the service with the same message as any bad value
    try:
        services.comment_vote(user=request.user, comment=comment, value=value)
    except services.KnowledgeError as exc:
        messages.error(request, str(exc))
    thread = ""
    if comment.rubric_item_id is not None:
        ids = knowledge.criterion_ids_for_reader(user=request.user, case_id=comment.case_id)
        thread = next((cid for cid, pk in ids.items() if pk == comment.rubric_item_id), "")
    return redirect(_thread_url(token, thread))


@login_required
@require_GET
def faq(request: HttpRequest) -> HttpResponse:
    if not _reader_allowed(request):
        return _not_expert(request)
    query = request.GET.get("q", "").strip()[:200]
    entries = knowledge.faq_search(query=query)
    return render(request, "frontend/faq.html", {"entries": entries, "query": query})


@login_required
@require_GET
def library(request: HttpRequest) -> HttpResponse:
    if not _reader_allowed(request):
        return _not_expert(request)
    entries = knowledge.library_entries_for_user(user=request.user)
    return render(request, "frontend/library.html", {"entries": entries})


@login_required
@require_GET
def library_entry(request: HttpRequest, entry_id: int) -> HttpResponse:
    if not _reader_allowed(request):
        return _not_expert(request)
    entry = knowledge.library_entry_get_for_user(user=request.user, entry_id=entry_id)
    staff = knowledge.is_staff(request.user)
    context = {
        "entry": entry,
        "dialogue": knowledge.library_dialogue(entry=entry),
        # Only staff learn which model wrote the exemplary response.
        "model_name": entry.response.model.name if staff else None,
    }
    return render(request, "frontend/library_entry.html", context)
