"""Django's admin app, whose discovery of every app's admin module can be left out."""

from django.contrib.admin.apps import AdminConfig as DjangoAdminConfig
from django.contrib.admin.apps import SimpleAdminConfig


class AdminConfig(DjangoAdminConfig):
    """Django's admin. ``discover`` off skips importing every app's ``admin.py`` (and the
    services, forms and report code they import) in ``django.setup()``: ``config.cli`` turns it
    off for the commands that never serve a page. The URLconf discovers them itself
    (``config/urls.py``), so reversing an admin page (a webhook's link) still works there."""

    discover = True

    def ready(self) -> None:
        if self.discover:
            super().ready()
        else:
            SimpleAdminConfig.ready(self)  # the admin's checks, without the discovery
