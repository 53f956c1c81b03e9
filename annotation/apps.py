from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class AnnotationConfig(AppConfig):
    name = "annotation"
    # Shown in the admin's app list and breadcrumbs; not part of any migration.
    verbose_name = _("Annotation")
