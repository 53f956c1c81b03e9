"""Experts from the admin's browser, through the services `heartbench expert add` uses: the
list (tier, specialties, active, calibration by study, demo logins marked), an invitation
instead of a typed password (a one-time set-password link), tier and specialties changed,
deactivated and back; and the public page the link opens.

The link is shown once: the invite's POST keeps it in the admin's session and the expert's
page takes it out, so a reload neither shows it again nor invites twice.
"""

from django.conf import settings
from django.contrib import messages
from django.contrib.admin.views.decorators import staff_member_required
from django.contrib.auth.forms import SetPasswordForm
from django.contrib.auth.password_validation import password_validators_help_text_html
from django.core.exceptions import ValidationError
from django.http import Http404
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods, require_POST

from annotation.models import Expert
from annotation.selectors import experts as selectors
from annotation.services.errors import AnnotationError
from annotation.services.experts import (
    expert_invitation_renew,
    expert_invite,
    expert_password_set,
    expert_update,
)
from annotation.services.routing import expert_set_active
from benchmark.selectors.scenes import primary_scenes
from benchmark.taxonomy import ABILITIES
from frontend.views.staff import staff_context

SESSION_LINKS = "manage_experts_links"  # expert id → the invitation link not shown yet


def _row_or_404(expert_id) -> selectors.ExpertRow:
    row = selectors.expert_row_for_admin(expert_id=expert_id)
    if row is None:
        raise Http404("no such expert")
    return row


def _specialty_choices(current: list[str]) -> dict:
    """The form's checkboxes: the abilities, the cases' scenes, and whatever else the
    expert holds already (a command may have given any text), so saving keeps it."""
    codes = [a.code for a in ABILITIES if a.category is not None]
    scenes = primary_scenes()
    known = {*codes, *scenes}
    return {
        "ability_codes": codes,
        "scenes": scenes,
        "other_specialties": [s for s in current if s not in known],
        "chosen": set(current),
    }


def _valid_for() -> str:
    """How long a link holds (PASSWORD_RESET_TIMEOUT), in days, else hours."""
    seconds = settings.PASSWORD_RESET_TIMEOUT
    if seconds >= 86400 and seconds % 86400 == 0:
        days = seconds // 86400
        return ngettext("%(n)s day", "%(n)s days", days) % {"n": days}
    hours = max(1, round(seconds / 3600))
    return ngettext("%(n)s hour", "%(n)s hours", hours) % {"n": hours}


def _keep_link(request, expert: Expert, invitation) -> None:
    url = request.build_absolute_uri(
        reverse("frontend:invite", args=[invitation.uidb64, invitation.token])
    )
    links = request.session.get(SESSION_LINKS, {})
    links[str(expert.pk)] = url
    request.session[SESSION_LINKS] = links


def _take_link(request, expert: Expert) -> str | None:
    links = request.session.get(SESSION_LINKS, {})
    url = links.pop(str(expert.pk), None)
    if url is not None:
        request.session[SESSION_LINKS] = links
    return url


@staff_member_required
@require_http_methods(["GET"])
def expert_list(request):
    rows = selectors.experts_for_admin()
    context = staff_context(
        request,
        _("Experts"),
        rows=rows,
        active_count=sum(row.expert.is_active for row in rows),
    )
    return render(request, "frontend/manage/experts.html", context)


@staff_member_required
@require_http_methods(["GET", "POST"])
def expert_new(request):
    values = {"username": "", "tier": Expert.Tier.EXPERT}
    chosen: list[str] = []
    error = None
    if request.method == "POST":
        values = {
            "username": request.POST.get("username", "").strip(),
            "tier": request.POST.get("tier", ""),
        }
        chosen = request.POST.getlist("specialties")
        try:
            expert, invitation = expert_invite(
                username=values["username"],
                tier=values["tier"],
                specialties=chosen,
                actor=request.user,
            )
        except AnnotationError as exc:
            error = str(exc)
        else:
            _keep_link(request, expert, invitation)
            messages.success(
                request,
                _("Expert %(name)s added. Send them the invitation link below.")
                % {"name": expert.user.get_username()},
            )
            return redirect("manage:expert", expert.pk)
    context = staff_context(
        request,
        _("Add an expert"),
        values=values,
        error=error,
        tiers=Expert.Tier.choices,
        **_specialty_choices(chosen),
    )
    return render(request, "frontend/manage/expert_new.html", context, status=400 if error else 200)


@staff_member_required
@never_cache
@require_http_methods(["GET", "POST"])
def expert_page(request, expert_id: int):
    """One expert: the invitation link just made (once), tier and specialties, active or not."""
    row = _row_or_404(expert_id)
    expert = row.expert
    error = None
    if request.method == "POST":
        try:
            expert_update(
                expert=expert,
                tier=request.POST.get("tier", ""),
                specialties=request.POST.getlist("specialties"),
                actor=request.user,
            )
        except AnnotationError as exc:
            error = str(exc)
        else:
            messages.success(
                request,
                _("Saved the tier and specialties of %(name)s.")
                % {"name": expert.user.get_username()},
            )
            return redirect("manage:expert", expert.pk)
    context = staff_context(
        request,
        _("Expert %(name)s") % {"name": expert.user.get_username()},
        row=row,
        expert=expert,
        link=_take_link(request, expert) if row.invited else None,
        valid_for=_valid_for(),
        error=error,
        tiers=Expert.Tier.choices,
        **_specialty_choices(list(expert.specialties)),
    )
    return render(request, "frontend/manage/expert.html", context, status=400 if error else 200)


@staff_member_required
@require_POST
def expert_invite_again(request, expert_id: int):
    """A new invitation link (the earlier ones stop working) for an expert with no password."""
    expert = _row_or_404(expert_id).expert
    try:
        invitation = expert_invitation_renew(expert=expert, actor=request.user)
    except AnnotationError as exc:
        messages.error(request, str(exc))
    else:
        _keep_link(request, expert, invitation)
        messages.success(
            request, _("A new invitation link is below; earlier links no longer work.")
        )
    return redirect("manage:expert", expert.pk)


@staff_member_required
@require_POST
def expert_active(request, expert_id: int):
    """Deactivate (open units go back to their pools) or reactivate, as the dashboard does."""
    expert = _row_or_404(expert_id).expert
    active = request.POST.get("active") == "yes"
    expert_set_active(expert=expert, active=active, actor=request.user)
    if active:
        messages.success(
            request,
            _("Reactivated %(name)s: they can take work again.")
            % {"name": expert.user.get_username()},
        )
    else:
        messages.success(
            request,
            _("Deactivated %(name)s; the units they held went back to their studies.")
            % {"name": expert.user.get_username()},
        )
    return redirect("manage:expert", expert.pk)


@never_cache
@require_http_methods(["GET", "POST"])
def invite(request, uidb64: str, token: str):
    """The public page an invitation link opens: the expert sets a password, then logs in.
    A used, expired, replaced or forged link gets a page that says so (never the form)."""
    expert = selectors.invitation_expert_get(uidb64=uidb64, token=token)
    if expert is None:
        return _invite_refused(request)
    form = SetPasswordForm(expert.user, request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            expert_password_set(
                uidb64=uidb64, token=token, password=form.cleaned_data["new_password1"]
            )
        except AnnotationError:
            return _invite_refused(request)
        except ValidationError as exc:
            form.add_error("new_password1", exc)
        else:
            messages.success(
                request,
                _("Your password is set. Log in with your user name %(name)s and the new password.")
                % {"name": expert.user.get_username()},
                extra_tags="done",
            )
            return redirect(f"{reverse('frontend:login')}?next={reverse('frontend:home')}")
    context = {
        "form": form,
        "username": expert.user.get_username(),
        "password_help": password_validators_help_text_html(),
    }
    return render(request, "frontend/invite.html", context, status=400 if form.errors else 200)


def _invite_refused(request):
    # One page for a used, expired, replaced or forged link: telling them apart would tell
    # anyone with a made-up link which logins exist and which have a password.
    return render(request, "frontend/invite_refused.html", status=404)
