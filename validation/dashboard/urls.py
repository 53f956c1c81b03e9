from django.urls import path

import config.converters  # noqa: F401  (registers the <study:...> converter)
from validation.dashboard import views

app_name = "dashboard"

urlpatterns = [
    path("", views.overview, name="overview"),
    path("runs/", views.runs, name="runs"),
    path("runs.json", views.runs_json, name="runs-json"),
    path("runs/<int:run_id>/retry/", views.retry_run, name="retry-run"),
    path("studies/<study:name>/", views.study_page, name="study"),
    path("studies/<study:name>/route/", views.route, name="route"),
    path("studies/<study:name>/recalibrate/", views.recalibrate, name="recalibrate"),
    path("studies/<study:name>/deactivate/", views.deactivate, name="deactivate"),
    path("studies/<study:name>/due-date/", views.due_date, name="due-date"),
]
