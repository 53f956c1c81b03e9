from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class ValidationConfig(AppConfig):
    name = "validation"
    # Shown in the admin's app list and breadcrumbs; not part of any migration.
    verbose_name = _("Validation")

    def ready(self) -> None:
        # Validation listens to annotation's unit events (annotation never imports validation):
        # a unit's last rating settles it in that rating's transaction (its gold, or the senior
        # queue for a 2/1 split), and a task settles it after the commit of a senior's decision.
        from annotation import events
        from config.lazy_task import task_lazy
        from validation import services
        from validation.services.announce import unit_completed_announce

        # Webhooks hear of the unit first, so "unit.completed" goes out before "gold.ready".
        events.subscribe(rated=unit_completed_announce)
        events.subscribe(
            rated=services.unit_settle,
            complete=task_lazy(path="validation.tasks.unit_gold_compute"),
        )
