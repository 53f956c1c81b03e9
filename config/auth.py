"""The API's token authentication: DRF's, with the user's expert profile read alongside.

Every expert request needs the profile (``annotation.selectors.expert_for_user``); reading it
in the token's query saves a query per request. A subclass of DRF's class, so the OpenAPI
schema still names one scheme, ``tokenAuth``.
"""

from django.utils.translation import gettext_lazy as _
from rest_framework import exceptions
from rest_framework.authentication import TokenAuthentication


class TokenWithExpertAuthentication(TokenAuthentication):
    def authenticate_credentials(self, key):
        model = self.get_model()
        # A user without a profile reads as none (``getattr(user, "expert", None)``).
        token = model.objects.select_related("user__expert").filter(key=key).first()
        if token is None:
            raise exceptions.AuthenticationFailed(_("Invalid token."))
        if not token.user.is_active:
            raise exceptions.AuthenticationFailed(_("User inactive or deleted."))
        return (token.user, token)
