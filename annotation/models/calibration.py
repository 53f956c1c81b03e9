"""Calibration sets with a senior expert's reference labels, attempts, and certificates."""

import secrets

from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from annotation.models.core import Expert, Pool, Unit


def certificate_serial() -> str:
    return f"HB-{secrets.token_hex(6).upper()}"


class CalibrationSet(models.Model):
    """A pool whose units carry reference labels; experts take it before study work.

    Its units are ordinary units of an ordinary pool, so the workbench and the API show them
    exactly as they show study units.
    """

    pool = models.OneToOneField(
        Pool, on_delete=models.PROTECT, related_name="calibration_set", verbose_name=_("pool")
    )
    # Share of criteria that must match the reference labels to pass.
    pass_threshold = models.FloatField(
        _("pass mark"),
        default=0.8,
        help_text=_("Share of criteria that must match the reference labels (0–1)."),
    )
    reference_by = models.ForeignKey(
        Expert,
        on_delete=models.PROTECT,
        related_name="+",
        verbose_name=_("reference labels by"),
    )
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)

    class Meta:
        ordering = ["pool__name"]
        verbose_name = _("calibration set")
        verbose_name_plural = _("calibration sets")
        constraints = [
            models.CheckConstraint(
                condition=Q(pass_threshold__gte=0, pass_threshold__lte=1),
                name="calibration_threshold_0_1",
            ),
        ]

    def __str__(self) -> str:
        return self.pool.name


class ReferenceLabel(models.Model):
    unit = models.ForeignKey(
        Unit, on_delete=models.PROTECT, related_name="reference_labels", verbose_name=_("unit")
    )
    rubric_item = models.ForeignKey(
        "benchmark.RubricItem",
        on_delete=models.PROTECT,
        related_name="reference_labels",
        verbose_name=_("criterion"),
    )
    hit = models.BooleanField(_("met"))

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["unit", "rubric_item"], name="reference_once"),
        ]
        verbose_name = _("reference label")
        verbose_name_plural = _("reference labels")

    def __str__(self) -> str:
        return f"{self.rubric_item_id}: {'hit' if self.hit else 'miss'}"


class CalibrationAttempt(models.Model):
    """One sitting of a calibration set by one expert; the result is written when it ends."""

    calibration_set = models.ForeignKey(
        CalibrationSet,
        on_delete=models.PROTECT,
        related_name="attempts",
        verbose_name=_("calibration set"),
    )
    expert = models.ForeignKey(
        Expert, on_delete=models.PROTECT, related_name="calibrations", verbose_name=_("expert")
    )
    # Why this sitting was due: "first" or "recalibration" (quality fell below a pool's bar).
    reason = models.CharField(_("reason"), max_length=20, default="first")
    started_at = models.DateTimeField(_("started at"))
    finished_at = models.DateTimeField(_("finished at"), null=True, blank=True)
    criteria = models.PositiveIntegerField(_("criteria"), default=0)
    agreed = models.PositiveIntegerField(_("criteria agreed"), default=0)
    agreement = models.FloatField(_("agreement"), null=True, blank=True)
    passed = models.BooleanField(_("passed"), null=True, blank=True)

    class Meta:
        ordering = ["-started_at", "-id"]
        verbose_name = _("calibration attempt")
        verbose_name_plural = _("calibration attempts")
        constraints = [
            models.UniqueConstraint(
                fields=["calibration_set", "expert"],
                condition=Q(finished_at__isnull=True),
                name="calibration_one_open_attempt",
            ),
        ]

    def __str__(self) -> str:
        state = "open" if self.finished_at is None else ("passed" if self.passed else "failed")
        return f"{self.expert} · {self.calibration_set} ({state})"


class CertificationBar(models.Model):
    """What an admin asks of an expert before a certificate is issued."""

    name = models.CharField(_("name"), max_length=200, unique=True)
    min_quality = models.FloatField(_("minimum quality"), default=0.8)
    min_units = models.PositiveIntegerField(_("minimum completed units"), default=20)
    calibration = models.ForeignKey(
        CalibrationSet,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
        verbose_name=_("required calibration set"),
    )
    is_active = models.BooleanField(_("active"), default=True)

    class Meta:
        ordering = ["name"]
        verbose_name = _("certification bar")
        verbose_name_plural = _("certification bars")
        constraints = [
            models.CheckConstraint(
                condition=Q(min_quality__gte=0, min_quality__lte=1), name="bar_quality_0_1"
            ),
        ]

    def __str__(self) -> str:
        return self.name


class Certificate(models.Model):
    expert = models.ForeignKey(
        Expert, on_delete=models.PROTECT, related_name="certificates", verbose_name=_("expert")
    )
    bar = models.ForeignKey(
        CertificationBar,
        on_delete=models.PROTECT,
        related_name="issued",
        verbose_name=_("certification bar"),
    )
    serial = models.CharField(
        _("serial number"), max_length=20, unique=True, default=certificate_serial
    )
    # The standing the expert had when the certificate was issued.
    quality = models.FloatField(_("quality"))
    units = models.PositiveIntegerField(_("completed units"))
    issued_at = models.DateTimeField(_("issued at"), auto_now_add=True)

    class Meta:
        ordering = ["-issued_at", "-id"]
        verbose_name = _("certificate")
        verbose_name_plural = _("certificates")
        constraints = [
            models.UniqueConstraint(fields=["expert", "bar"], name="certificate_once_per_bar"),
        ]

    def __str__(self) -> str:
        return f"{self.serial} · {self.expert} · {self.bar}"
