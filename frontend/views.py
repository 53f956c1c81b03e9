"""Server-rendered pages: the expert's home, the workbench shell and the completed-work list.

The workbench itself talks to the REST API from a small vendored script; these views only
check who is asking and render what the annotation selectors allow them to see.
"""

from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render

from annotation import selectors, selectors_knowledge, selectors_quality, selectors_work, services
from annotation.models import CertificationBar
from annotation.selectors_work import WorkState


class LoginView(auth_views.LoginView):
    template_name = "frontend/login.html"
    redirect_authenticated_user = True


def _is_expert(user) -> bool:
    try:
        selectors.expert_for_user(user=user)
    except selectors.NotAnExpert:
        return False
    return True


@login_required
def home(request: HttpRequest) -> HttpResponse:
    if not _is_expert(request.user):
        # Admins and other staff work in the admin; there is no expert work for them here.
        return (
            redirect("admin:index")
            if request.user.is_staff
            else render(request, "frontend/not_expert.html", status=403)
        )
    # "Start" only where the claim can hand out work now; elsewhere the state says why.
    studies = selectors_work.studies_with_work_state(user=request.user)
    return render(request, "frontend/home.html", {"studies": studies})


@login_required
def workbench(request: HttpRequest, study: str) -> HttpResponse:
    if not _is_expert(request.user):
        return render(request, "frontend/not_expert.html", status=403)
    _, state = selectors_work.study_work_state(user=request.user, name=study)
    context = {
        "study": study,
        "state": state,
        "capacity": selectors.expert_for_user(user=request.user).daily_capacity,
    }
    # Not the expert's study: a plain page saying so (404, as before), never the technical one.
    status = 404 if state == WorkState.NOT_ENROLLED else 200
    return render(request, "frontend/workbench.html", context, status=status)


@login_required
def completed(request: HttpRequest) -> HttpResponse:
    if not _is_expert(request.user):
        return render(request, "frontend/not_expert.html", status=403)
    page = selectors.assignments_completed_page(user=request.user, number=request.GET.get("page"))
    done = list(page.object_list)
    # A discussion link only where the thread is open (no rating work left on the case).
    discuss = selectors_knowledge.unit_tokens_open_for_discussion(
        user=request.user, unit_ids={a.unit_id for a in done}
    )
    context = {"done": done, "page": page, "discuss": discuss}
    return render(request, "frontend/completed.html", context)


@login_required
def profile(request: HttpRequest) -> HttpResponse:
    """The expert's own standing and calibration history; never a reference label."""
    if not _is_expert(request.user):
        return render(request, "frontend/not_expert.html", status=403)
    expert = selectors.expert_for_user(user=request.user)
    context = {
        "expert": expert,
        "standing": selectors_quality.expert_quality_get(expert=expert),
        "history": selectors_quality.calibration_history(expert=expert),
    }
    return render(request, "frontend/profile.html", context)


@login_required
def certificate(request: HttpRequest) -> HttpResponse:
    if not _is_expert(request.user):
        return render(request, "frontend/not_expert.html", status=403)
    expert = selectors.expert_for_user(user=request.user)
    held = selectors_quality.certificates_for_expert(expert=expert)
    pending = [
        (bar, services.certificate_shortfall(expert=expert, bar=bar))
        for bar in CertificationBar.objects.filter(is_active=True).exclude(issued__expert=expert)
    ]
    return render(
        request, "frontend/certificate.html", {"expert": expert, "held": held, "pending": pending}
    )
