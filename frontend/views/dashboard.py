"""Admin dashboard pages (staff only): parse, check, call a selector or service, render."""

import datetime
from functools import wraps

from django.contrib import messages
from django.contrib.admin.views.decorators import staff_member_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpResponseRedirect, JsonResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_GET, require_POST

from annotation.quality import QUALITY_MIN_UNITS
from annotation.services.errors import AnnotationError
from annotation.services.routing import (
    expert_require_recalibration,
    expert_set_active,
    unit_route_to_expert,
)
from benchmark.services.judge_retry import judge_run_retry_errors
from benchmark.services.llm_jobs import LLMJobConfigError
from frontend.views import manage_studies
from frontend.views.staff import back, staff_context, study_or_404
from validation.dashboard import alerts as dashboard_alerts
from validation.dashboard import charts, rules, selectors
from validation.dashboard import runs as dashboard_runs
from validation.dashboard.services import study_set_due_date
from validation.dashboard.time_on_task import study_time_on_task
from validation.services import StudyError, study_stop_early

BUCKET_LABELS = [
    (selectors.PENDING, gettext_lazy("pending")),
    (selectors.IN_PROGRESS, gettext_lazy("in progress")),
    (selectors.GOLD, gettext_lazy("gold")),
    (selectors.WAITING_SENIOR, gettext_lazy("waiting for a senior")),
    (selectors.ADJUDICATED, gettext_lazy("adjudicated")),
    (selectors.INCOMPLETE, gettext_lazy("incomplete")),
    (selectors.DROPPED, gettext_lazy("dropped")),
]


def _bucket_rows(progress) -> list[tuple[str, int]]:
    return [(label, progress.buckets[key]) for key, label in BUCKET_LABELS]


@staff_member_required
@require_GET
def overview(request):
    """Every study's progress and pace, and the risks across all of them."""
    now = timezone.now()
    studies = selectors.studies_list()
    progress = selectors.studies_progress(studies=studies, now=now)
    alerts = dashboard_alerts.alerts_collect(
        studies=studies, progress=progress, runs=dashboard_runs.judge_runs_recent(), now=now
    )
    return render(
        request,
        "frontend/dashboard/overview.html",
        staff_context(
            request,
            _("Dashboard"),
            rows=[(p, _bucket_rows(p)) for p in progress],
            bucket_labels=[label for _key, label in BUCKET_LABELS],
            alerts=alerts,
            rules=rules,
        ),
    )


@staff_member_required
@require_GET
def study_page(request, name: str):
    """One study: units by state, work per expert and per day, pace, quality, alerts, routing."""
    study = study_or_404(name)
    now = timezone.now()
    detail = selectors.study_detail(study=study, now=now)
    alerts = dashboard_alerts.alerts_collect(
        studies=[study],
        progress=[detail.progress],
        runs=dashboard_runs.judge_runs_for_study(study=study),
        now=now,
        agreement=detail.agreement,
    )
    chart = charts.daily_bars(
        title=_("Ratings submitted per day (last %(days)s days)")
        % {"days": selectors.DAYS_CHARTED},
        rows=detail.per_day,
        empty=_("No ratings submitted in this period."),
    )
    monitoring = _monitoring(study)
    context = staff_context(
        request,
        _("Dashboard: %(study)s") % {"study": study.name},
        study=study,
        detail=detail,
        buckets=_bucket_rows(detail.progress),
        alerts=alerts,
        chart=chart,
        experts=selectors.route_choices(study=study),
        route_unit=request.GET.get("unit", ""),
        weeks=detail.weeks,
        expert_weeks=[
            (row, [row.weeks.get(week) for week in detail.weeks]) for row in detail.experts
        ],
        min_units=QUALITY_MIN_UNITS,
        time_on_task=study_time_on_task(study=study),
        monitoring=monitoring,
        look_rows=_look_rows(monitoring),
        life=manage_studies.lifecycle(study),
    )
    return render(request, "frontend/dashboard/study.html", context)


def _monitoring(study):
    # Deferred: numpy and scipy load only for a study that looks at its gate as it goes.
    if not study.look_every:
        return None
    from validation.dashboard.monitoring import study_monitoring

    return study_monitoring(study=study)


def _look_rows(monitoring) -> list[dict]:
    """Each judge's gate conditions at the look, named with the report's wording and rules."""
    if monitoring is None:
        return []
    from validation.report.html import gate_conditions_view

    shown = gate_conditions_view([row.condition.as_dict() for row in monitoring.rows])
    return [
        {"judge": row.judge, "condition": condition, "look": row.look}
        for row, condition in zip(monitoring.rows, shown, strict=True)
    ]


@staff_member_required
@require_POST
def route(request, name: str):
    """Manual routing: lease one of the study's units to one of its experts."""
    study = study_or_404(name)
    page = reverse("dashboard:study", args=[study.name])
    unit = selectors.unit_in_study(study=study, token=request.POST.get("unit", "").strip())
    expert = selectors.expert_in_study(study=study, expert_id=request.POST.get("expert"))
    if unit is None or expert is None:
        messages.error(request, _("Choose a unit of this study and one of its experts."))
        return HttpResponseRedirect(page)
    try:
        assignment = unit_route_to_expert(unit=unit, expert=expert, actor=request.user)
    except AnnotationError as exc:
        messages.error(request, _("Not routed: %(reason)s") % {"reason": exc})
    else:
        messages.success(
            request,
            _("Unit %(unit)s routed to %(expert)s (rater slot %(slot)s).")
            % {"unit": unit.token, "expert": expert, "slot": assignment.slot},
        )
    return HttpResponseRedirect(page)


@staff_member_required
@require_POST
def recalibrate(request, name: str):
    study = study_or_404(name)
    expert = selectors.expert_in_study(study=study, expert_id=request.POST.get("expert"))
    if expert is None:
        raise Http404("no such expert in this study")
    try:
        expert_require_recalibration(expert=expert, pool=study.pool, actor=request.user)
    except AnnotationError as exc:
        messages.error(request, str(exc))
    else:
        messages.success(
            request,
            _("%(expert)s must pass the calibration again before more study work.")
            % {"expert": expert},
        )
    return back(request, reverse("dashboard:study", args=[study.name]))


@staff_member_required
@require_POST
def deactivate(request, name: str):
    study = study_or_404(name)
    expert = selectors.expert_in_study(study=study, expert_id=request.POST.get("expert"))
    if expert is None:
        raise Http404("no such expert in this study")
    expert_set_active(expert=expert, active=False, actor=request.user)
    messages.success(
        request, _("%(expert)s is deactivated; their open units went back.") % {"expert": expert}
    )
    return back(request, reverse("dashboard:study", args=[study.name]))


@staff_member_required
@require_POST
def due_date(request, name: str):
    study = study_or_404(name)
    raw = request.POST.get("due_date", "").strip()
    try:
        value = datetime.date.fromisoformat(raw) if raw else None
    except ValueError:
        messages.error(request, _("Give the date as YYYY-MM-DD."))
    else:
        study_set_due_date(study=study, due_date=value, actor=request.user)
        messages.success(request, _("Due date saved."))
    return back(request, reverse("dashboard:study", args=[study.name]))


@staff_member_required
@require_POST
def stop_early(request, name: str):
    """Close a sequentially monitored study at its current look (the form asks to confirm)."""
    study = study_or_404(name)
    if request.POST.get("confirm") != "yes":
        messages.error(request, _("Tick the box to confirm stopping the study early."))
        return back(request, reverse("dashboard:study", args=[study.name]))
    try:
        result = study_stop_early(study=study, actor=request.user)
    except StudyError as exc:
        messages.error(request, str(exc))
    else:
        messages.success(
            request,
            _("Study stopped early: %(dropped)s units left the sample.")
            % {"dropped": result["dropped"]},
        )
    return back(request, reverse("dashboard:study", args=[study.name]))


@staff_member_required
@require_GET
def runs(request):
    """Judge and generation runs; the page refreshes itself from ``runs_json``."""
    return render(
        request,
        "frontend/dashboard/runs.html",
        staff_context(request, _("Judge and generation runs"), live=dashboard_runs.runs_live()),
    )


@staff_member_required
@require_POST
def retry_run(request, run_id: int):
    """A failing judge run's action: ask the judge again where the run ended in errors."""
    if not request.user.has_perm("benchmark.add_judgerun"):
        raise PermissionDenied
    run = dashboard_runs.judge_run_get_for_admin(run_id=run_id)
    if run is None:
        raise Http404("no such run")
    try:
        retry = judge_run_retry_errors(run=run, actor=request.user)
    except LLMJobConfigError as exc:
        messages.error(request, _("Not queued: %(reason)s") % {"reason": exc})
    else:
        messages.success(
            request,
            _(
                "Run %(retry)s is queued: it asks the judge again where run %(run)s ended in "
                "errors; the judge's other replies come from the cache."
            )
            % {"retry": retry.pk, "run": run.pk},
        )
    return back(request, reverse("dashboard:runs"))


def _staff_json(view):
    # A polled endpoint answers 403 rather than redirecting a script to the login page.
    @wraps(view)
    def wrapper(request, *args, **kwargs):
        user = request.user
        if not (user.is_active and user.is_staff):
            return JsonResponse({"detail": "staff only"}, status=403)
        return view(request, *args, **kwargs)

    return wrapper


@_staff_json
@require_GET
def runs_json(request):
    response = JsonResponse(dashboard_runs.runs_live())
    response["Cache-Control"] = "no-store"
    return response
