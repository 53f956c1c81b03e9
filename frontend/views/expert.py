"""Server-rendered pages: the expert's home, the workbench shell, profile and certificate.

The workbench itself talks to the REST API from a small vendored script; these views only
check who is asking and render what the annotation selectors allow them to see.
"""

from functools import wraps

from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render

from annotation import selectors, services
from annotation.selectors import quality as selectors_quality
from annotation.selectors import work as selectors_work
from annotation.selectors.work import WorkState
from validation import selectors as validation_selectors


class LoginView(auth_views.LoginView):
    template_name = "frontend/login.html"
    redirect_authenticated_user = True


def _is_expert(user) -> bool:
    try:
        selectors.expert_for_user(user=user)
    except selectors.NotAnExpert:
        return False
    return True


def expert_required(view):
    """An expert's page: anyone else (signed in) gets the page saying it is for experts."""

    @wraps(view)
    def wrapper(request: HttpRequest, *args, **kwargs) -> HttpResponse:
        if not _is_expert(request.user):
            return render(request, "frontend/not_expert.html", status=403)
        return view(request, *args, **kwargs)

    return wrapper


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
@expert_required
def workbench(request: HttpRequest, study: str) -> HttpResponse:
    pool, state = selectors_work.study_work_state(user=request.user, name=study)
    expert = selectors.expert_for_user(user=request.user)
    context = {"study": study, "state": state, "capacity": expert.daily_capacity}
    if pool is not None:
        context["progress"] = selectors_work.study_progress(expert=expert, pool=pool)
        found = validation_selectors.study_get(name=pool.name)
        context["due_date"] = found.due_date if found else None
    # Not the expert's study: a plain page saying so (404, as before), never the technical one.
    status = 404 if state == WorkState.NOT_ENROLLED else 200
    return render(request, "frontend/workbench.html", context, status=status)


@login_required
@expert_required
def profile(request: HttpRequest) -> HttpResponse:
    """The expert's own standing and calibration history; never a reference label."""
    expert = selectors.expert_for_user(user=request.user)
    context = {
        "expert": expert,
        "standing": selectors_quality.expert_quality_get(expert=expert, closed_only=True),
        "history": selectors_quality.calibration_history(expert=expert),
    }
    return render(request, "frontend/profile.html", context)


@login_required
@expert_required
def certificate(request: HttpRequest) -> HttpResponse:
    expert = selectors.expert_for_user(user=request.user)
    held = selectors_quality.certificates_for_expert(expert=expert)
    pending = [
        (bar, services.certificate_shortfall(expert=expert, bar=bar, closed_only=True))
        for bar in selectors_quality.certification_bars_not_held(expert=expert)
    ]
    return render(
        request, "frontend/certificate.html", {"expert": expert, "held": held, "pending": pending}
    )
