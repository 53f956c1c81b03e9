"""The absolute standards' pages: senior experts write and revise each ability's standard.

Who may write is annotation's rule (``annotation.work``: an active senior expert), applied by
its service; staff use the admin.
"""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import get_language
from django.utils.translation import gettext as _

from annotation.services.errors import AnnotationError
from annotation.services.standards import standard_write_by_senior
from annotation.work import ABSOLUTE_STANDARD, user_may
from benchmark.selectors.construction import standard_history, standards_current
from benchmark.services.standards import StandardError
from benchmark.taxonomy import SCORED_CODES, ability_name


def _denied(request: HttpRequest) -> HttpResponse:
    return render(
        request,
        "frontend/not_senior.html",
        {"reason": _("Only senior experts write the absolute standards.")},
        status=403,
    )


def _is_senior(request: HttpRequest) -> bool:
    return user_may(kind=ABSOLUTE_STANDARD, user=request.user)


@login_required
def standards(request: HttpRequest) -> HttpResponse:
    if not _is_senior(request):
        return _denied(request)
    written = standards_current()
    language = get_language()
    rows = [
        {"code": code, "name": ability_name(code, language=language), "standard": written.get(code)}
        for code in SCORED_CODES
    ]
    return render(request, "frontend/standards.html", {"rows": rows, "written": len(written)})


@login_required
def standard_edit(request: HttpRequest, ability: str) -> HttpResponse:
    if not _is_senior(request):
        return _denied(request)
    if ability not in SCORED_CODES:
        raise Http404
    standard = standards_current().get(ability)
    posted = {"text": standard.text if standard else "", "reason": ""}
    error = ""
    if request.method == "POST":
        posted = {key: request.POST.get(key, "").replace("\r\n", "\n") for key in posted}
        try:
            version = standard_write_by_senior(ability=ability, user=request.user, **posted)
        except (StandardError, AnnotationError) as exc:
            error = str(exc)
        else:
            messages.success(request, _("Version %(number)d saved.") % {"number": version.number})
            return redirect("frontend:standard-edit", ability=ability)
    context = {
        "code": ability,
        "name": ability_name(ability, language=get_language()),
        "standard": standard,
        "posted": posted,
        "error": error,
        "history": list(standard_history(ability=ability)),
    }
    return render(request, "frontend/standard_edit.html", context, status=400 if error else 200)
