"""How a request's user is read: with the user's expert profile, in the same query.

Every expert request needs the profile (``annotation.selectors.expert_for_user``); reading it
alongside the user saves a query per request, whether the request carries the API's token
(``TokenWithExpertAuthentication``) or the pages' session cookie (``ExpertModelBackend``,
the project's one authentication backend).
"""

from django.contrib.auth.backends import ModelBackend, UserModel
from django.utils.translation import gettext_lazy as _
from rest_framework import exceptions
from rest_framework.authentication import TokenAuthentication


class TokenWithExpertAuthentication(TokenAuthentication):
    """DRF's token authentication; a subclass, so the OpenAPI schema still names one scheme,
    ``tokenAuth``."""

    def authenticate_credentials(self, key):
        model = self.get_model()
        # A user without a profile reads as none (``getattr(user, "expert", None)``).
        # A slice, not first(): no ORDER BY to compile for a primary-key match.
        token = next(iter(model.objects.select_related("user__expert").filter(key=key)[:1]), None)
        if token is None:
            raise exceptions.AuthenticationFailed(_("Invalid token."))
        if not token.user.is_active:
            raise exceptions.AuthenticationFailed(_("User inactive or deleted."))
        return (token.user, token)


class ExpertModelBackend(ModelBackend):
    """Django's user-name and password backend; the session's user comes with its profile."""

    def get_user(self, user_id):
        try:
            user = UserModel._default_manager.select_related("expert").get(pk=user_id)
        except UserModel.DoesNotExist:
            return None
        return user if self.user_can_authenticate(user) else None
