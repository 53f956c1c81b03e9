"""The rule for study names (pure: no ORM).

A study's name is its handle everywhere: the command line, the pool experts see, and one
segment of URLs such as ``/rate/<name>/`` and ``/admin/dashboard/studies/<name>/``. New names
are kept to characters that need no explaining in any of them. Names stored before this rule
existed still work: the URLs carry any name (``annotation.converters.StudyNameConverter``).
"""

import re

from django.core.exceptions import ValidationError
from django.utils.translation import gettext

NAME_MAX_LENGTH = 100
# Letters of any script (Chinese too) and digits first, then also '-', '_' and '.'. Python's
# \w is Unicode-aware: letters, digits and '_'. A leading '-' would read as a command-line
# option, and a name of dots alone as a path step ('.', '..').
_NAME = re.compile(rf"[^\W_][\w.-]{{0,{NAME_MAX_LENGTH - 1}}}")


def study_name_problem(*, name: str) -> str | None:
    """Why ``name`` cannot name a new study, or None when it can."""
    if _NAME.fullmatch(name):
        return None
    return gettext(
        "%(name)r cannot name a study: use letters (Chinese too), digits, '-', '_' and '.', "
        "starting with a letter or digit, 1 to %(max)d characters."
    ) % {"name": name, "max": NAME_MAX_LENGTH}


def validate_study_name(value: str) -> None:
    """The rule as a Django validator, so every form over ``Study.name`` checks it too."""
    problem = study_name_problem(name=value)
    if problem is not None:
        raise ValidationError(problem, code="study_name")
