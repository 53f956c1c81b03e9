from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class ValidationConfig(AppConfig):
    name = "validation"
    # Shown in the admin's app list and breadcrumbs; not part of any migration.
    verbose_name = _("Validation")

    def ready(self) -> None:
        # Validation listens to annotation's unit events (annotation never imports validation):
        # a unit's last rating routes 2/1 splits to a senior in that rating's transaction, and
        # its gold is computed by a task after the commit.
        from annotation import events
        from validation import services, tasks

        events.subscribe(rated=services.study_route_splits, complete=tasks.unit_gold_compute)
