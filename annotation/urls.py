from django.urls import path

import annotation.converters  # noqa: F401  (registers the <study:...> converter)
from annotation import api
from annotation.api import adjudication as api_adjudication
from annotation.api import work as api_work

app_name = "annotation"

# Every kind of expert work in one shape (docs/architecture.md): ``next/`` hands out the next
# piece (the one held comes back first), ``<id>/`` reads it, ``renew/`` keeps its lease,
# ``submit/`` answers it, and ``draft/``, ``revise/``, ``flag/`` where the kind has them.
RATING = {
    "next": api.NextAssignmentView,
    "completed": api.CompletedView,
    "detail": api.AssignmentDetailView,
    "draft": api.DraftView,
    "renew": api.RenewView,
    "submit": api.SubmitView,
    "revise": api.ReviseView,
    "flag": api.FlagView,
}
ADJUDICATION = {
    "next": api_adjudication.NextAdjudicationView,
    "detail": api_adjudication.AdjudicationDetailView,
    "renew": api.RenewView,
    "submit": api_adjudication.AdjudicationSubmitView,
}
LISTS = ("next", "completed")  # operations on the kind, not on one piece of its work


def _work(prefix: str, views: dict, *, name: str, item: str, **initkwargs) -> list:
    """The routes of one kind of work under ``prefix``, named ``<name>-<operation>``."""
    routes = []
    for operation, view in views.items():
        if operation in LISTS:
            url = f"{prefix}{operation}/"
        else:
            url = f"{prefix}{item}/" + ("" if operation == "detail" else f"{operation}/")
        routes.append(path(url, view.as_view(**initkwargs), name=f"{name}-{operation}"))
    return routes


def _construction(kind: str, submit) -> list:
    views = {
        "next": api_work.WorkNextView,
        "detail": api_work.WorkTaskView,
        "renew": api_work.WorkRenewView,
        "submit": submit,
    }
    return _work(f"work/{kind}/", views, name=f"work-{kind}", item="<str:task_id>", kind=kind)


urlpatterns = [
    path("auth/token/", api.TokenView.as_view(), name="token"),
    path("studies/", api.StudyListView.as_view(), name="studies"),
    path("studies/<study:study>/progress/", api.StudyProgressView.as_view(), name="progress"),
    *_work("work/rating/", RATING, name="work-rating", item="<str:assignment_id>"),
    *_work(
        "work/adjudication/", ADJUDICATION, name="work-adjudication", item="<str:assignment_id>"
    ),
    *(
        route
        for kind, submit in api_work.SUBMIT_VIEWS.items()
        for route in _construction(kind, submit)
    ),
    # The paths of the first clients (the workbench before the one shape, scripts), kept as
    # they were and left out of the schema (config.openapi.without_aliases).
    *_work("assignments/", RATING, name="assignment", item="<str:assignment_id>"),
    *_work(
        "adjudications/",
        {k: v for k, v in ADJUDICATION.items() if k != "renew"},
        name="adjudication",
        item="<str:assignment_id>",
    ),
]
