from django.urls import path

import annotation.converters  # noqa: F401  (registers the <study:...> converter)
from annotation import api
from annotation.api import adjudication as api_adjudication

app_name = "annotation"

urlpatterns = [
    path("auth/token/", api.TokenView.as_view(), name="token"),
    path("studies/", api.StudyListView.as_view(), name="studies"),
    path("studies/<study:study>/progress/", api.StudyProgressView.as_view(), name="progress"),
    path("assignments/next/", api.NextAssignmentView.as_view(), name="next"),
    path("assignments/completed/", api.CompletedView.as_view(), name="completed"),
    path("assignments/<str:assignment_id>/", api.AssignmentDetailView.as_view(), name="detail"),
    path("assignments/<str:assignment_id>/draft/", api.DraftView.as_view(), name="draft"),
    path("assignments/<str:assignment_id>/renew/", api.RenewView.as_view(), name="renew"),
    path("assignments/<str:assignment_id>/submit/", api.SubmitView.as_view(), name="submit"),
    path("assignments/<str:assignment_id>/revise/", api.ReviseView.as_view(), name="revise"),
    path("assignments/<str:assignment_id>/flag/", api.FlagView.as_view(), name="flag"),
    # The senior queue (adjudication of split or incomplete units).
    path("adjudications/next/", api_adjudication.NextAdjudicationView.as_view(), name="adj-next"),
    path(
        "adjudications/<str:assignment_id>/",
        api_adjudication.AdjudicationDetailView.as_view(),
        name="adj-detail",
    ),
    path(
        "adjudications/<str:assignment_id>/submit/",
        api_adjudication.AdjudicationSubmitView.as_view(),
        name="adj-submit",
    ),
]
