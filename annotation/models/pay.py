"""The pay ledger: rates per pool and tier, and append-only entries."""

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from annotation.models.core import Expert, Pool, Submission


class PayRate(models.Model):
    pool = models.ForeignKey(
        Pool, on_delete=models.CASCADE, related_name="pay_rates", verbose_name=_("pool")
    )
    tier = models.CharField(_("tier"), max_length=10, choices=Expert.Tier.choices)
    amount = models.DecimalField(_("amount per unit"), max_digits=10, decimal_places=2)
    currency = models.CharField(_("currency"), max_length=3)
    updated_at = models.DateTimeField(_("updated at"), auto_now=True)

    class Meta:
        ordering = ["pool", "tier"]
        verbose_name = _("pay rate")
        verbose_name_plural = _("pay rates")
        constraints = [
            models.UniqueConstraint(fields=["pool", "tier"], name="payrate_pool_tier"),
            models.CheckConstraint(condition=Q(amount__gte=0), name="payrate_not_negative"),
        ]

    def __str__(self) -> str:
        return f"{self.pool} · {self.tier}: {self.amount} {self.currency}"


class PayEntry(models.Model):
    """One line of the ledger, never edited: a correction is a new entry with the opposite sign."""

    class Kind(models.TextChoices):
        EARNING = "earning", _("earning")
        CORRECTION = "correction", _("correction")

    expert = models.ForeignKey(
        Expert, on_delete=models.PROTECT, related_name="pay_entries", verbose_name=_("expert")
    )
    pool = models.ForeignKey(
        Pool, on_delete=models.PROTECT, related_name="pay_entries", verbose_name=_("pool")
    )
    kind = models.CharField(_("kind"), max_length=12, choices=Kind.choices)
    submission = models.ForeignKey(
        Submission,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="pay_entries",
        verbose_name=_("submission"),
    )
    corrects = models.ForeignKey(
        "self",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="corrections",
        verbose_name=_("corrects"),
    )
    amount = models.DecimalField(_("amount"), max_digits=10, decimal_places=2)
    currency = models.CharField(_("currency"), max_length=3)
    reason = models.CharField(_("reason"), max_length=300, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        verbose_name=_("created by"),
    )
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)

    class Meta:
        ordering = ["created_at", "id"]
        verbose_name = _("pay entry")
        verbose_name_plural = _("pay entries")
        constraints = [
            # One earning per accepted submission, whatever the code above tries.
            models.UniqueConstraint(
                fields=["submission"], condition=Q(kind="earning"), name="payentry_one_earning"
            ),
            models.CheckConstraint(
                condition=Q(kind="earning", submission__isnull=False, corrects__isnull=True)
                | Q(kind="correction", corrects__isnull=False),
                name="payentry_kind_shape",
            ),
        ]
        indexes = [models.Index(fields=["created_at"])]

    def __str__(self) -> str:
        return f"{self.expert} {self.amount} {self.currency} ({self.kind})"
