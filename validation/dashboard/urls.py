from django.urls import path

from validation.dashboard import views

app_name = "dashboard"

urlpatterns = [
    path("", views.overview, name="overview"),
    path("runs/", views.runs, name="runs"),
    path("runs.json", views.runs_json, name="runs-json"),
    path("runs/<int:run_id>/retry/", views.retry_run, name="retry-run"),
    path("studies/<str:name>/", views.study_page, name="study"),
    path("studies/<str:name>/route/", views.route, name="route"),
    path("studies/<str:name>/recalibrate/", views.recalibrate, name="recalibrate"),
    path("studies/<str:name>/deactivate/", views.deactivate, name="deactivate"),
    path("studies/<str:name>/due-date/", views.due_date, name="due-date"),
]
