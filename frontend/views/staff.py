"""What every staff page of the platform shares: the admin's frame around its content, the
study it is about, and where a form goes back to."""

from django.contrib import admin
from django.http import Http404, HttpResponseRedirect
from django.utils.http import url_has_allowed_host_and_scheme

from validation.dashboard import selectors


def staff_context(request, title: str, **extra) -> dict:
    # The admin's header and user tools around our content, without the model sidebar: its
    # app list costs a permission check and URL per model on every (polled) request.
    site = admin.site
    return {
        "site_title": site.site_title,
        "site_header": site.site_header,
        "site_url": site.site_url,
        "has_permission": site.has_permission(request),
        "available_apps": [],
        "is_popup": False,
        "is_nav_sidebar_enabled": False,
        "title": title,
        **extra,
    }


def study_or_404(name: str):
    study = selectors.study_get_for_admin(name=name)
    if study is None:
        raise Http404("no such study")
    return study


def back(request, default: str) -> HttpResponseRedirect:
    target = request.POST.get("next") or default
    if not url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        target = default
    return HttpResponseRedirect(target)
