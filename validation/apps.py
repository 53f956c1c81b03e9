from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class ValidationConfig(AppConfig):
    name = "validation"
    # Shown in the admin's app list and breadcrumbs; not part of any migration.
    verbose_name = _("Validation")

    def ready(self) -> None:
        # Validation listens to annotation's unit events (annotation never imports validation):
        # a unit's last rating settles it in that rating's transaction (its gold, or the senior
        # queue for a 2/1 split), and a senior's decision in the decision's transaction.
        # Named, not imported: the services and tasks load with the first unit rated.
        from annotation import events
        from config.lazy_import import Lazy

        # Webhooks hear of the unit first, so "unit.completed" goes out before "gold.ready".
        events.subscribe(rated=Lazy("validation.services.announce.unit_completed_announce"))
        events.subscribe(
            rated=Lazy("validation.services.unit_settle"),
            decided=Lazy("validation.services.unit_settle"),
        )
