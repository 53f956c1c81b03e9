from django import forms
from django.contrib import admin, messages
from django.core.validators import URLValidator
from django.utils.html import format_html_join
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from webhooks.events import Event
from webhooks.models import Delivery, Endpoint
from webhooks.services import deliveries_replay

SECRET_MIN = 16


class EndpointForm(forms.ModelForm):
    # Write-only: the stored secret is never rendered; empty on a change keeps it.
    secret = forms.CharField(
        label=_("Secret"),
        required=False,
        widget=forms.PasswordInput(render_value=False, attrs={"autocomplete": "new-password"}),
        help_text=_(
            "Signs every delivery (HMAC-SHA256); at least 16 characters. Never shown again: "
            "leave empty to keep the current one."
        ),
    )
    events = forms.MultipleChoiceField(
        label=_("Events received"), choices=Event.choices, widget=forms.CheckboxSelectMultiple
    )
    url = forms.URLField(
        label=_("URL"),
        max_length=500,
        assume_scheme="https",
        validators=[URLValidator(schemes=["http", "https"])],
    )

    class Meta:
        model = Endpoint
        fields = ["name", "url", "secret", "events", "active"]

    def clean_secret(self) -> str:
        secret = self.cleaned_data["secret"]
        if not secret and self.instance.pk:
            return self.instance.secret
        if len(secret) < SECRET_MIN:
            raise forms.ValidationError(
                _("The secret needs at least %(n)d characters."), params={"n": SECRET_MIN}
            )
        return secret


@admin.register(Endpoint)
class EndpointAdmin(admin.ModelAdmin):
    form = EndpointForm
    list_display = ["name", "url", "event_list", "active", "created_at"]
    list_filter = ["active"]
    search_fields = ["name", "url"]

    @admin.display(description=_("events received"))
    def event_list(self, obj):
        return ", ".join(obj.events)


@admin.register(Delivery)
class DeliveryAdmin(admin.ModelAdmin):
    """The delivery log: read-only, with "send again"."""

    list_display = ["event", "endpoint", "created_at", "attempts", "last_status", "last_error",
                    "next_try", "delivered_at"]  # fmt: skip
    list_filter = ["event", "endpoint", ("delivered_at", admin.EmptyFieldListFilter)]
    search_fields = ["event_id"]
    fields = ["endpoint", "event", "event_id", "payload", "attempts", "last_status", "last_error",
              "attempt_log", "next_try", "delivered_at", "created_at"]  # fmt: skip
    readonly_fields = fields
    actions = ["send_again"]

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    @admin.display(description=_("attempt log"))
    def attempt_log(self, obj):
        return format_html_join(
            "", "<div>{} · {} · {} · {} s</div>",
            ((a["at"], a["status"] or "—", a["error"] or "ok", a["seconds"]) for a in obj.history),
        )  # fmt: skip

    @admin.action(description=_("Send again"), permissions=["view"])
    def send_again(self, request, queryset):
        queued = deliveries_replay(delivery_ids=list(queryset.values_list("pk", flat=True)))
        self.message_user(
            request,
            ngettext(
                "%(n)d delivery queued to be sent again.",
                "%(n)d deliveries queued to be sent again.",
                queued,
            )
            % {"n": queued},
            messages.SUCCESS,
        )
