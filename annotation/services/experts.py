"""An admin's writes on experts from the browser: invite (a login with no password and a
one-time link to set it), the link made again, the password set from the link, tier and
specialties changed. Creating the login is ``core.expert_create`` (the command's rule);
(de)activation is ``routing.expert_set_active``.

An invitation link is Django's password-reset token (``default_token_generator``) for the
user's id: it stops working once a password is set (the token covers the password hash),
after ``PASSWORD_RESET_TIMEOUT``, and when a new link is made (a new unusable hash).
"""

from collections.abc import Iterable
from dataclasses import dataclass

from django.contrib.auth import get_user_model
from django.contrib.auth.password_validation import validate_password
from django.contrib.auth.tokens import default_token_generator
from django.db import transaction
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_encode
from django.utils.translation import gettext as _

from annotation.audit_actions import AnnotationAction
from annotation.models import Expert
from annotation.selectors.experts import invitation_expert_get
from annotation.services.core import expert_create
from annotation.services.errors import AnnotationError
from benchmark.services.audit import audit_record
from config.locks import row_lock


@dataclass(frozen=True)
class Invitation:
    """What the link to ``/invite/<uidb64>/<token>/`` carries."""

    uidb64: str
    token: str


def _invitation(user) -> Invitation:
    return Invitation(
        uidb64=urlsafe_base64_encode(force_bytes(user.pk)),
        token=default_token_generator.make_token(user),
    )


def expert_invite(
    *,
    username: str,
    tier: str,
    specialties: Iterable[str] = (),
    actor,
) -> tuple[Expert, Invitation]:
    """Create an expert whose login has no password yet, and the link to set one.

    Only a new login: inviting an existing one would hand its password to whoever holds the
    link. The rest is ``expert_create``'s rules (user name, tier), audited there.
    """
    user_model = get_user_model()
    name = user_model.normalize_username(username.strip())
    if name and user_model.objects.filter(**{user_model.USERNAME_FIELD: name}).exists():
        raise AnnotationError(
            _("a login named %(name)s exists already; choose another user name") % {"name": name}
        )
    if not name:
        raise AnnotationError(_("give a user name"))
    expert = expert_create(
        username=name, password=None, tier=tier, specialties=specialties, actor=actor
    )
    return expert, _invitation(expert.user)


def expert_invitation_renew(*, expert: Expert, actor) -> Invitation:
    """A new link for an expert who has not set a password yet; the earlier links stop
    working (the unusable password the tokens cover is drawn again)."""
    with transaction.atomic():
        expert = row_lock(Expert, expert.pk)
        user = expert.user
        if user.has_usable_password():
            raise AnnotationError(
                _("no new invitation: %(name)s has set a password already")
                % {"name": user.get_username()}
            )
        user.set_unusable_password()
        user.save(update_fields=["password"])
        audit_record(actor=actor, action=AnnotationAction.EXPERT_INVITE, obj=expert, data={})
    return _invitation(user)


def expert_password_set(*, uidb64: str, token: str, password: str) -> Expert:
    """Set the password of the expert an invitation link names; the link is then used up.

    Raises ``AnnotationError`` for a link that does not (or no longer) hold and Django's
    ``ValidationError`` for a password the configured validators refuse (nothing written).
    The token is checked again under the user's lock, so two sends of one link set at most
    one password.
    """
    user_model = get_user_model()
    with transaction.atomic():
        found = invitation_expert_get(uidb64=uidb64, token=token)
        if found is None:
            raise AnnotationError(_("this invitation link is not valid"))
        user = user_model.objects.select_for_update().get(pk=found.user_id)
        if user.has_usable_password() or not default_token_generator.check_token(user, token):
            raise AnnotationError(_("this invitation link is not valid"))
        validate_password(password, user=user)
        user.set_password(password)
        user.save(update_fields=["password"])
        audit_record(actor=user, action=AnnotationAction.EXPERT_PASSWORD_SET, obj=found, data={})
    return found


def expert_update(*, expert: Expert, tier: str, specialties: Iterable[str], actor) -> Expert:
    """Change an expert's tier and specialties (audited with both values before and after)."""
    if tier not in Expert.Tier.values:
        raise AnnotationError(
            _("tier must be one of %(tiers)s") % {"tiers": ", ".join(Expert.Tier.values)}
        )
    chosen = list(dict.fromkeys(s.strip() for s in specialties if s.strip()))
    with transaction.atomic():
        expert = row_lock(Expert, expert.pk)
        before = {"tier": expert.tier, "specialties": list(expert.specialties)}
        after = {"tier": tier, "specialties": chosen}
        if before == after:
            return expert
        expert.tier, expert.specialties = tier, chosen
        expert.save(update_fields=["tier", "specialties"])
        audit_record(
            actor=actor,
            action=AnnotationAction.EXPERT_UPDATE,
            obj=expert,
            data={"before": before, "after": after},
        )
    return expert
