"""Webhook endpoints an admin registers, and every delivery made to them."""

import uuid

from django.db import models
from django.utils.translation import gettext_lazy as _

from webhooks.events import Event


def all_events() -> list[str]:
    return list(Event.values)


class Endpoint(models.Model):
    name = models.CharField(_("name"), max_length=100, unique=True)
    url = models.URLField(_("URL"), max_length=500, help_text=_("Receives a POST per event."))
    # Kept in the clear: every delivery is signed with it. The admin never shows it again.
    secret = models.CharField(
        _("secret"),
        max_length=200,
        help_text=_("Signs every delivery (HMAC-SHA256); at least 16 characters."),
    )
    events = models.JSONField(_("events received"), default=all_events)
    active = models.BooleanField(_("active"), default=True)
    created_at = models.DateTimeField(_("created"), auto_now_add=True)

    class Meta:
        verbose_name = _("webhook endpoint")
        verbose_name_plural = _("webhook endpoints")

    def __str__(self) -> str:
        return self.name


class Delivery(models.Model):
    endpoint = models.ForeignKey(
        Endpoint, on_delete=models.CASCADE, related_name="deliveries", verbose_name=_("endpoint")
    )
    event = models.CharField(_("event"), max_length=50, choices=Event.choices)
    # The event's id, the same in every endpoint's delivery of it: receivers de-duplicate by it.
    event_id = models.UUIDField(_("event id"), default=uuid.uuid4)
    payload = models.JSONField(_("payload"))
    attempts = models.PositiveIntegerField(_("attempts"), default=0)
    last_status = models.PositiveSmallIntegerField(_("last status code"), null=True, blank=True)
    last_error = models.CharField(_("last error"), max_length=500, blank=True)
    history = models.JSONField(
        _("attempt log"), default=list, help_text=_("Each attempt: when, status, error.")
    )
    next_try = models.DateTimeField(_("next try"), null=True, blank=True)
    delivered_at = models.DateTimeField(_("delivered"), null=True, blank=True)
    created_at = models.DateTimeField(_("created"), auto_now_add=True)

    class Meta:
        verbose_name = _("webhook delivery")
        verbose_name_plural = _("webhook deliveries")
        ordering = ["-created_at", "-pk"]

    def __str__(self) -> str:
        return f"{self.event} → {self.endpoint}"
