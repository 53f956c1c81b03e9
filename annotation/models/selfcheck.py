"""Self-validation (issue 14, scope 6): a draft's rubric author mock-scores a few reference
responses with the draft's criteria, to compare with the judge's verdicts on them."""

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from benchmark.models import DraftCriterion, DraftResponse


class MockScore(models.Model):
    """The author's label of one criterion, at the version they were shown, for one reference
    response. Saved while they work; ``submitted_at`` is set when they submit the response,
    after which the label is final and the judge's verdicts on that response are shown."""

    criterion = models.ForeignKey(
        DraftCriterion,
        on_delete=models.CASCADE,
        related_name="mock_scores",
        verbose_name=_("draft criterion"),
    )
    criterion_version = models.PositiveIntegerField(_("draft criterion version"))
    response = models.ForeignKey(
        DraftResponse,
        on_delete=models.CASCADE,
        related_name="mock_scores",
        verbose_name=_("reference response"),
    )
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        related_name="mock_scores",
        verbose_name=_("author"),
    )
    met = models.BooleanField(_("met"))
    updated_at = models.DateTimeField(_("updated at"), auto_now=True)
    submitted_at = models.DateTimeField(_("submitted at"), null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["criterion", "criterion_version", "response", "author"],
                name="mock_score_once",
            ),
        ]
        ordering = ["response", "criterion__position"]
        verbose_name = _("mock score")
        verbose_name_plural = _("mock scores")

    def __str__(self) -> str:
        return f"{self.criterion} v{self.criterion_version} / {self.response}: {self.met}"
