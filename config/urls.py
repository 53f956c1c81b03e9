from django.contrib import admin
from django.templatetags.static import static
from django.urls import include, path
from django.utils.functional import lazy
from django.utils.translation import gettext_lazy as _
from django.views.generic import RedirectView
from django.views.i18n import JavaScriptCatalog
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

from frontend import urls_admin

# Every app's admin module, when django.setup() left them out (config.apps.AdminConfig).
admin.autodiscover()
# The admin's header and page titles name the platform, in the interface language.
admin.site.site_header = _("HeartBench administration")
admin.site.site_title = _("HeartBench administration")

# A database outage met outside a view (by a middleware) is a 503 too (config/busy.py).
handler500 = "config.busy.server_error"

urlpatterns = [
    path("admin/", include((urls_admin.benchmark_urls, "benchmark"))),
    path("admin/", include((urls_admin.validation_urls, "validation"))),
    path("admin/dashboard/", include((urls_admin.dashboard_urls, "dashboard"))),
    path("admin/manage/", include((urls_admin.manage_urls, "manage"))),
    path("admin/", admin.site.urls),
    path("api/v1/admin/", include("validation.urls")),
    path("api/v1/", include("annotation.urls")),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    # Swagger UI's set-up as a script file of its own (?script), as the page policy wants.
    path("api/docs/", SpectacularSwaggerSplitView.as_view(url_name="schema"), name="api-docs"),
    # The language switch posts to i18n/setlang/; scripts get their strings from jsi18n/.
    path("i18n/", include("django.conf.urls.i18n")),
    path("jsi18n/", JavaScriptCatalog.as_view(), name="javascript-catalog"),
    path("", include("frontend.urls")),
    # Asked for by browsers on any page without an icon link (the API's JSON, an error page):
    # the pages' icon, not a 404 in the server's log. Its URL is read when asked for (in
    # production it names the collected file's hash).
    path(
        "favicon.ico",
        RedirectView.as_view(url=lazy(static, str)("frontend/favicon.svg")),
        name="favicon",
    ),
]
