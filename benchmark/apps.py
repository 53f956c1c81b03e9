from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class BenchmarkConfig(AppConfig):
    name = "benchmark"
    # Shown in the admin's app list and breadcrumbs; not part of any migration.
    verbose_name = _("Benchmark")
