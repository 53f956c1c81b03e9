"""An expert's look back at submitted work: earlier versions kept, flags for a senior."""

from django.db import models
from django.utils.translation import gettext_lazy as _

from annotation.models.core import Expert, Submission


class SubmissionVersion(models.Model):
    """A submission's labels as they stood before its rater revised them (append-only)."""

    submission = models.ForeignKey(
        Submission, on_delete=models.PROTECT, related_name="versions", verbose_name=_("submission")
    )
    version = models.PositiveSmallIntegerField(_("version"))
    # [{"item": rubric item id, "hit": bool, "note": str, "rubric_version": int}, ...]
    labels = models.JSONField(_("labels"))
    active_seconds = models.PositiveIntegerField(_("active seconds"), null=True, blank=True)
    # When this version was made: the first submission, or the revision that made it.
    submitted_at = models.DateTimeField(_("submitted at"))

    class Meta:
        ordering = ["submission", "version"]
        verbose_name = _("earlier version")
        verbose_name_plural = _("earlier versions")
        constraints = [
            models.UniqueConstraint(
                fields=["submission", "version"], name="submission_version_once"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.submission_id} v{self.version}"


class ReviewFlag(models.Model):
    """A rater's request that a senior look at a unit whose gold is already written."""

    class Status(models.TextChoices):
        OPEN = "open", _("open")
        UPHELD = "upheld", _("gold questioned")
        DISMISSED = "dismissed", _("gold stands")

    submission = models.ForeignKey(
        Submission, on_delete=models.PROTECT, related_name="flags", verbose_name=_("submission")
    )
    reason = models.TextField(_("reason"))
    status = models.CharField(
        _("status"), max_length=10, choices=Status.choices, default=Status.OPEN
    )
    created_at = models.DateTimeField(_("flagged at"), auto_now_add=True)
    resolved_by = models.ForeignKey(
        Expert,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("resolved by"),
    )
    answer = models.TextField(_("senior's answer"), blank=True)
    resolved_at = models.DateTimeField(_("resolved at"), null=True, blank=True)

    class Meta:
        ordering = ["created_at", "id"]
        verbose_name = _("flag for review")
        verbose_name_plural = _("flags for review")
        constraints = [
            # One open flag per submission: a second one adds nothing for the senior.
            models.UniqueConstraint(
                fields=["submission"], condition=models.Q(status="open"), name="flag_open_once"
            ),
        ]

    def __str__(self) -> str:
        return f"flag on {self.submission_id} ({self.status})"
