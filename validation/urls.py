"""The admin API, mounted at /api/v1/admin/ (namespace ``admin-api``): staff only."""

from django.urls import path

import annotation.converters  # noqa: F401  (registers the <study:...> converter)
from validation import api

app_name = "admin-api"

urlpatterns = [
    path("studies/", api.StudyListView.as_view(), name="studies"),
    path("studies/<study:study>/", api.StudyDetailView.as_view(), name="study"),
    path("studies/<study:study>/open/", api.StudyOpenView.as_view(), name="open"),
    path("studies/<study:study>/close/", api.StudyCloseView.as_view(), name="close"),
    path("studies/<study:study>/progress/", api.StudyProgressView.as_view(), name="progress"),
    path("studies/<study:study>/report/", api.StudyReportView.as_view(), name="report"),
    path("studies/<study:study>/export/", api.StudyExportView.as_view(), name="export"),
]
