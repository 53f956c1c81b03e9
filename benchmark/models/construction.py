"""Building a benchmark (the paper's §3): construction projects, their draft cases, and the
absolute standards senior experts write per ability."""

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from benchmark.models.core import ABILITY_CHOICES, LLMRun, ModelUnderTest
from benchmark.taxonomy import SCORED_CODES

STANDARD_CHOICES = [(code, label) for code, label in ABILITY_CHOICES if code in SCORED_CODES]


class ConstructionProject(models.Model):
    """A benchmark being built: it owns its draft cases until it publishes them."""

    name = models.CharField(_("name"), max_length=200, unique=True)
    dataset_name = models.CharField(
        _("dataset name"), max_length=200, help_text=_("The name the published dataset takes.")
    )
    description = models.TextField(_("description"), blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        verbose_name=_("created by"),
    )
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)

    class Meta:
        ordering = ["name"]
        verbose_name = _("construction project")
        verbose_name_plural = _("construction projects")

    def __str__(self) -> str:
        return self.name


class DraftCase(models.Model):
    """A seed scenario on its way to becoming a case; an LLM rewrite sits beside the seed's
    own dialogue, which is never overwritten, so a reviewer can compare them."""

    project = models.ForeignKey(
        ConstructionProject,
        on_delete=models.CASCADE,
        related_name="drafts",
        verbose_name=_("project"),
    )
    question_id = models.CharField(_("question id"), max_length=100)
    position = models.PositiveIntegerField(_("position"))
    dialogue = models.JSONField(_("seed dialogue"))
    rewrite = models.JSONField(_("rewritten dialogue"), null=True, blank=True)
    rewrite_model = models.CharField(_("rewritten by"), max_length=200, blank=True)
    rewrite_error = models.CharField(
        _("rewrite error"),
        max_length=500,
        blank=True,
        help_text=_("Why the latest rewrite could not be used."),
    )
    primary_scene = models.CharField(_("primary scene"), max_length=200, blank=True)
    source = models.CharField(_("source"), max_length=500, blank=True)
    notes = models.TextField(_("notes"), blank=True)
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["project", "question_id"], name="draft_project_qid"),
        ]
        ordering = ["project", "position"]
        verbose_name = _("draft case")
        verbose_name_plural = _("draft cases")

    def __str__(self) -> str:
        return f"{self.project}/{self.question_id}"


class RewriteRun(LLMRun):
    """One pass of an LLM rewriting a project's seed dialogues (``construction.rewrite``);
    resumable like a generation run: a rewritten draft is not asked again."""

    project = models.ForeignKey(
        ConstructionProject,
        on_delete=models.CASCADE,
        related_name="rewrite_runs",
        verbose_name=_("project"),
    )
    model = models.ForeignKey(
        ModelUnderTest,
        on_delete=models.PROTECT,
        related_name="rewrite_runs",
        verbose_name=_("model"),
    )

    class Meta(LLMRun.Meta):
        verbose_name = _("rewrite run")
        verbose_name_plural = _("rewrite runs")

    def __str__(self) -> str:
        return f"rewrite {self.pk}: {self.model} on {self.project}"


class ReferenceRun(LLMRun):
    """One pass of a reference model answering a project's drafts (the relative standard);
    resumable: a draft the model answered is not asked again."""

    project = models.ForeignKey(
        ConstructionProject,
        on_delete=models.CASCADE,
        related_name="reference_runs",
        verbose_name=_("project"),
    )
    model = models.ForeignKey(
        ModelUnderTest,
        on_delete=models.PROTECT,
        related_name="reference_runs",
        verbose_name=_("model"),
    )
    # The drafts of the latest session that got no answer, with the reason (the first 50).
    failures = models.JSONField(_("failures"), default=list, blank=True)

    class Meta(LLMRun.Meta):
        verbose_name = _("reference run")
        verbose_name_plural = _("reference runs")

    def __str__(self) -> str:
        return f"references {self.pk}: {self.model} on {self.project}"


class DraftResponse(models.Model):
    """A reference model's answer to a draft: what the rubric's criteria should tell apart."""

    draft = models.ForeignKey(
        DraftCase, on_delete=models.CASCADE, related_name="responses", verbose_name=_("draft case")
    )
    model = models.ForeignKey(
        ModelUnderTest,
        on_delete=models.PROTECT,
        related_name="draft_responses",
        verbose_name=_("model"),
    )
    text = models.TextField(_("text"))
    from_rewrite = models.BooleanField(
        _("answered the rewrite"),
        default=False,
        help_text=_("The model saw the rewritten dialogue, not the seed's."),
    )
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["draft", "model"], name="draft_response_model"),
        ]
        verbose_name = _("reference response")
        verbose_name_plural = _("reference responses")

    def __str__(self) -> str:
        return f"{self.model} / {self.draft}"


class AbsoluteStandard(models.Model):
    """The therapeutic principles and behavioural markers of one ability, written by senior
    experts; the current text of a history kept in ``AbsoluteStandardVersion``."""

    ability = models.CharField(_("ability"), max_length=40, choices=STANDARD_CHOICES, unique=True)
    text = models.TextField(_("text"))
    version = models.PositiveIntegerField(_("version"), default=1)
    updated_at = models.DateTimeField(_("updated at"), auto_now=True)

    class Meta:
        ordering = ["ability"]
        verbose_name = _("absolute standard")
        verbose_name_plural = _("absolute standards")

    def __str__(self) -> str:
        return f"{self.ability} v{self.version}"


class AbsoluteStandardVersion(models.Model):
    """One state of a standard, with who wrote it and why; number 1 is the first text."""

    standard = models.ForeignKey(
        AbsoluteStandard,
        on_delete=models.CASCADE,
        related_name="versions",
        verbose_name=_("absolute standard"),
    )
    number = models.PositiveIntegerField(_("version"))
    text = models.TextField(_("text"))
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        verbose_name=_("author"),
    )
    reason = models.TextField(_("reason"), blank=True)
    created_at = models.DateTimeField(_("date"), auto_now_add=True)

    class Meta:
        ordering = ["standard", "number"]
        verbose_name = _("absolute standard version")
        verbose_name_plural = _("absolute standard versions")
        constraints = [
            models.UniqueConstraint(fields=["standard", "number"], name="standard_version_once"),
        ]

    def __str__(self) -> str:
        return f"{self.standard_id} v{self.number}"
