"""The kinds of expert work and who may do each: one rule per kind, read by the claims, the
pages and the API. Every kind is leased, renewed and submitted through the one lease rule
(``annotation.services.leases``) on a table of the ``LeasedWork`` family.
"""

from annotation import selectors
from annotation.models import Assignment, Expert, TaskKind

# Writing the absolute standards (not handed out: a senior opens an ability's page).
ABSOLUTE_STANDARD = "absolute_standard"
# Deciding for a study (the senior queue), accepting a benchmark's case (the panel) and
# writing the absolute standards are for senior experts; every other kind for any active
# expert.
SENIORS_ONLY = frozenset({Assignment.Kind.ADJUDICATION, TaskKind.PANEL, ABSOLUTE_STANDARD})


def kind_permitted(*, kind: str, expert: Expert) -> bool:
    """May this expert take work of this kind?"""
    return expert.is_senior or kind not in SENIORS_ONLY


def user_may(*, kind: str, user) -> bool:
    """May this user do work of this kind: an active expert whom ``kind_permitted`` lets."""
    try:
        expert = selectors.expert_for_user(user=user)
    except selectors.NotAnExpert:
        return False
    return kind_permitted(kind=kind, expert=expert)
