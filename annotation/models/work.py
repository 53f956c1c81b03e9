"""The one shape of every kind of expert work: a row leased to one expert, renewed while the
expert works, expired when the lease runs out (its slot goes back to the queue), submitted
once. Each kind keeps its own table and answer tables (``Assignment`` for study work,
``ConstructionTask`` for the construction tiers); the lease rule itself lives once, in
``annotation.services.leases``, and the kinds in ``annotation.work``.
"""

import uuid

from django.db import models
from django.utils.translation import gettext_lazy as _


class LeaseStatus(models.TextChoices):
    LEASED = "leased", _("leased")
    SUBMITTED = "submitted", _("submitted")
    EXPIRED = "expired", _("expired")
    # Taken away by staff (a study closed or reassigned): never won back.
    RELEASED = "released", _("released")


class LeasedWork(models.Model):
    """The lease's columns, shared by every table of expert work."""

    Status = LeaseStatus

    # The id an expert's client and pages name the row by (never the sequential key).
    public_id = models.UUIDField(_("public id"), default=uuid.uuid4, unique=True, editable=False)
    status = models.CharField(
        _("status"), max_length=10, choices=LeaseStatus.choices, default=LeaseStatus.LEASED
    )
    lease_expires_at = models.DateTimeField(_("lease expires at"))
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)
    submitted_at = models.DateTimeField(_("submitted at"), null=True, blank=True)

    class Meta:
        abstract = True
