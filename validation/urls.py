from django.urls import path

import config.converters  # noqa: F401  (registers the <study:...> converter)
from validation import views

app_name = "validation"

urlpatterns = [
    path("studies/<study:name>/report/", views.study_report, name="study-report"),
    path("studies/<study:name>/export/", views.study_export, name="study-export"),
]
