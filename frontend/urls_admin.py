"""The staff pages under /admin/, each list under the namespace its URL names have always had
(``benchmark:``, ``validation:``, ``dashboard:``), and under ``manage:`` (/admin/manage/) what
an admin does in the browser instead of the command line: imports, experts, studies;
``config.urls`` mounts them."""

from django.urls import path

import annotation.converters  # noqa: F401  (registers the <study:...> converter)
from frontend.views import (
    admin_leaderboard,
    dashboard,
    disagreements,
    manage_experts,
    manage_imports,
    manage_studies,
    study_report,
)

benchmark_urls = [
    path("leaderboard/", admin_leaderboard.leaderboard, name="leaderboard"),
]

validation_urls = [
    path("studies/<study:name>/report/", study_report.study_report, name="study-report"),
    path("studies/<study:name>/export/", study_report.study_export, name="study-export"),
    path(
        "studies/<study:name>/disagreements/",
        disagreements.study_disagreements,
        name="study-disagreements",
    ),
    path(
        "studies/<study:name>/disagreements.csv",
        disagreements.study_disagreements_csv,
        name="study-disagreements-csv",
    ),
]

dashboard_urls = [
    path("", dashboard.overview, name="overview"),
    path("runs/", dashboard.runs, name="runs"),
    path("runs.json", dashboard.runs_json, name="runs-json"),
    path("runs/<int:run_id>/retry/", dashboard.retry_run, name="retry-run"),
    path("studies/<study:name>/", dashboard.study_page, name="study"),
    path("studies/<study:name>/route/", dashboard.route, name="route"),
    path("studies/<study:name>/recalibrate/", dashboard.recalibrate, name="recalibrate"),
    path("studies/<study:name>/deactivate/", dashboard.deactivate, name="deactivate"),
    path("studies/<study:name>/due-date/", dashboard.due_date, name="due-date"),
    path("studies/<study:name>/stop-early/", dashboard.stop_early, name="stop-early"),
]

# What an admin does in the browser rather than at the command line, through the same services.
manage_urls: list = [
    path("studies/new/", manage_studies.study_new, name="study-new"),
    path("studies/new-pairwise/", manage_studies.study_new_pairwise, name="study-new-pairwise"),
    path("studies/<study:name>/open/", manage_studies.study_open, name="study-open"),
    path("studies/<study:name>/enrol/", manage_studies.study_enrol, name="study-enrol"),
    path("studies/<study:name>/close/", manage_studies.study_close, name="study-close"),
    path("studies/<study:name>/delete/", manage_studies.study_delete, name="study-delete"),
    path("import/", manage_imports.import_page, name="import"),
    path("experts/", manage_experts.expert_list, name="experts"),
    path("experts/new/", manage_experts.expert_new, name="expert-new"),
    path("experts/<int:expert_id>/", manage_experts.expert_page, name="expert"),
    path(
        "experts/<int:expert_id>/invite/",
        manage_experts.expert_invite_again,
        name="expert-invite",
    ),
    path("experts/<int:expert_id>/active/", manage_experts.expert_active, name="expert-active"),
]
