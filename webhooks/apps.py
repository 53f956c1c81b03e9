from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class WebhooksConfig(AppConfig):
    name = "webhooks"
    # Shown in the admin's app list and breadcrumbs; not part of any migration.
    verbose_name = _("Webhooks")

    def ready(self) -> None:
        # Services queue deliveries without importing the tasks (tasks call services).
        from django.db.models.signals import post_delete, post_save

        from config.lazy_import import Lazy
        from webhooks import dispatch
        from webhooks.models import Endpoint
        from webhooks.services import endpoints_forget

        dispatch.deliver_task_register(task=Lazy("webhooks.tasks.webhook_deliver"))
        post_save.connect(endpoints_forget, sender=Endpoint, dispatch_uid="webhooks-endpoints")
        post_delete.connect(endpoints_forget, sender=Endpoint, dispatch_uid="webhooks-endpoints")
