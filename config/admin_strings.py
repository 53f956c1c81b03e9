"""Strings of Django's admin templates (5.2) that Django's own zh_Hans catalogue lacks.

Listed here so that `make messages` puts them in the project catalogue, which Django reads
before its own (LOCALE_PATHS comes first); nothing imports this module.
"""

from django.utils.translation import gettext_noop

DJANGO_ADMIN_STRINGS = (
    gettext_noop("Model name"),
    gettext_noop("Add link"),
    gettext_noop("Change or view list link"),
)
