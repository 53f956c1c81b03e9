"""The absolute standards as expert work: who may write them is annotation's rule
(``annotation.work``); the writing itself is benchmark's (``benchmark.services.standards``)."""

from django.utils.translation import gettext as _

from annotation.services.errors import AnnotationError
from annotation.work import ABSOLUTE_STANDARD, user_may
from benchmark.services.standards import standard_write


def standard_write_by_senior(*, user, ability: str, text: str, reason: str):
    """A senior expert writes a new version of an ability's standard; anyone else is refused
    (staff write theirs in the admin)."""
    if not user_may(kind=ABSOLUTE_STANDARD, user=user):
        raise AnnotationError(_("Only senior experts write the absolute standards."))
    return standard_write(ability=ability, author=user, text=text, reason=reason)
