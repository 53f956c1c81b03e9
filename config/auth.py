"""How a request's user is read: with the user's expert profile, in the same query.

Every expert request needs the profile (``annotation.selectors.expert_for_user``); reading it
alongside the user saves a query per request, whether the request carries the API's token
(``TokenWithExpertAuthentication``) or the pages' session cookie (``ExpertModelBackend``,
the project's one authentication backend).
"""

from django.contrib.auth.backends import ModelBackend, UserModel
from django.db.models import QuerySet
from django.utils.translation import gettext_lazy as _
from rest_framework import exceptions
from rest_framework.authentication import TokenAuthentication

from config import compiled


class TokenWithExpertAuthentication(TokenAuthentication):
    """DRF's token authentication; a subclass, so the OpenAPI schema still names one scheme,
    ``tokenAuth``."""

    def authenticate_credentials(self, key):
        # A user without a profile reads as none (``getattr(user, "expert", None)``). The
        # three-table statement is compiled once (every API request pays this read).
        token = compiled.first(("api token", self.get_model()), self._token_of, key=key)
        if token is None:
            raise exceptions.AuthenticationFailed(_("Invalid token."))
        if not token.user.is_active:
            raise exceptions.AuthenticationFailed(_("User inactive or deleted."))
        return (token.user, token)

    def _token_of(self, *, key: str) -> QuerySet:
        # A slice, not first(): no ORDER BY for a primary-key match.
        return self.get_model().objects.select_related("user__expert").filter(key=key)[:1]


class ExpertModelBackend(ModelBackend):
    """Django's user-name and password backend; the session's user comes with its profile."""

    def get_user(self, user_id):
        try:
            user = UserModel._default_manager.select_related("expert").get(pk=user_id)
        except UserModel.DoesNotExist:
            return None
        return user if self.user_can_authenticate(user) else None
