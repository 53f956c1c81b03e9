"""Building a benchmark (the paper's §3): construction projects, their draft cases, and the
absolute standards senior experts write per ability."""

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from benchmark.models.core import (
    ABILITY_CHOICES,
    Criterion,
    CriterionVersion,
    Dataset,
    LLMRun,
    ModelUnderTest,
    RubricItem,
    TextVersion,
)
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


class DraftStatus(models.TextChoices):
    ACTIVE = "active", _("in the funnel")
    REMOVED = "removed", _("removed")
    ACCEPTED = "accepted", _("accepted by the panel")
    PUBLISHED = "published", _("published")


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
    status = models.CharField(
        _("status"), max_length=10, choices=DraftStatus.choices, default=DraftStatus.ACTIVE
    )
    # The stage that removed the draft (saturation's "too_easy", the panel's "rejected", ...)
    # and why, in words a reviewer can check; blank while the draft is in the funnel.
    removed_stage = models.CharField(_("removed at stage"), max_length=40, blank=True)
    removed_reason = models.TextField(_("why removed"), blank=True)
    # The expert who owns the draft's rubric: revises it after review and mock-scores it.
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="authored_drafts",
        verbose_name=_("rubric author"),
    )
    # The experts' difficulty decision (normal or hard) and its reason category.
    difficulty = models.CharField(_("difficulty"), max_length=10, blank=True)
    difficulty_reason = models.CharField(_("difficulty reason"), max_length=40, blank=True)
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


class AbsoluteStandardVersion(TextVersion):
    """One state of a standard, with who wrote it and why; number 1 is the first text."""

    standard = models.ForeignKey(
        AbsoluteStandard,
        on_delete=models.CASCADE,
        related_name="versions",
        verbose_name=_("absolute standard"),
    )

    class Meta:
        ordering = ["standard", "number"]
        verbose_name = _("absolute standard version")
        verbose_name_plural = _("absolute standard versions")
        constraints = [
            models.UniqueConstraint(fields=["standard", "number"], name="standard_version_once"),
        ]

    def __str__(self) -> str:
        return f"{self.standard_id} v{self.number}"


class SynthesisRun(LLMRun):
    """One pass of an LLM drafting the criteria of a project's drafts (``construction.rubric``);
    resumable: a draft that has synthesised criteria is not asked again."""

    project = models.ForeignKey(
        ConstructionProject,
        on_delete=models.CASCADE,
        related_name="synthesis_runs",
        verbose_name=_("project"),
    )
    model = models.ForeignKey(
        ModelUnderTest,
        on_delete=models.PROTECT,
        related_name="synthesis_runs",
        verbose_name=_("model"),
    )
    failures = models.JSONField(_("failures"), default=list, blank=True)

    class Meta(LLMRun.Meta):
        verbose_name = _("rubric synthesis run")
        verbose_name_plural = _("rubric synthesis runs")

    def __str__(self) -> str:
        return f"synthesis {self.pk}: {self.model} on {self.project}"


class DraftCriterion(Criterion):
    """A binary criterion of a draft case, drafted by an LLM or written by an expert; its
    current state, with the history in ``DraftCriterionVersion`` (like rubric versions)."""

    class Status(models.TextChoices):
        ACTIVE = "active", _("active")
        REMOVED = "removed", _("removed")

    class Origin(models.TextChoices):
        SYNTHESISED = "synthesised", _("drafted by an LLM")
        HAND = "hand", _("written by an expert")

    draft = models.ForeignKey(
        DraftCase, on_delete=models.CASCADE, related_name="criteria", verbose_name=_("draft case")
    )
    status = models.CharField(
        _("status"), max_length=10, choices=Status.choices, default=Status.ACTIVE
    )
    removed_stage = models.CharField(_("removed at stage"), max_length=40, blank=True)
    removed_reason = models.TextField(_("why removed"), blank=True)
    origin = models.CharField(_("origin"), max_length=12, choices=Origin.choices)
    # Provenance of a synthesised criterion: the run, its template version, the model and the
    # raw reply it was read from (kept even when a later version rewrites the text).
    synthesis_run = models.ForeignKey(
        SynthesisRun,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="criteria",
        verbose_name=_("synthesis run"),
    )
    template_version = models.CharField(_("prompt template version"), max_length=100, blank=True)
    model_name = models.CharField(_("drafted by model"), max_length=200, blank=True)
    raw_reply = models.TextField(_("raw reply"), blank=True)
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        verbose_name=_("author"),
    )
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["draft", "position"], name="draft_criterion_position"),
        ]
        ordering = ["draft", "position"]
        verbose_name = _("draft criterion")
        verbose_name_plural = _("draft criteria")

    def __str__(self) -> str:
        return f"{self.draft} #{self.position}"


class DraftCriterionVersion(CriterionVersion):
    """One state of a draft criterion; number 1 is the first text (a draft's ability may
    change with a revision)."""

    criterion = models.ForeignKey(
        DraftCriterion,
        on_delete=models.CASCADE,
        related_name="versions",
        verbose_name=_("draft criterion"),
    )
    ability = models.CharField(_("ability"), max_length=40, choices=ABILITY_CHOICES)

    class Meta:
        ordering = ["criterion", "number"]
        verbose_name = _("draft criterion version")
        verbose_name_plural = _("draft criterion versions")
        constraints = [
            models.UniqueConstraint(fields=["criterion", "number"], name="draft_criterion_once"),
        ]

    def __str__(self) -> str:
        return f"{self.criterion_id} v{self.number}"


# A snapshot's purpose: a scoring round's drafts (kept off the leaderboards), or the version
# the project published.
SNAPSHOT_QUALITY = "quality"
SNAPSHOT_PUBLISHED = "published"


class ConstructionSnapshot(models.Model):
    """The project's active drafts, criteria and reference answers frozen as an ordinary
    dataset, so the judge, ``heartbench saturation`` and the report read them unchanged.
    ``SnapshotCriterion`` maps each of its rubric items back to the draft criterion."""

    project = models.ForeignKey(
        ConstructionProject,
        on_delete=models.CASCADE,
        related_name="snapshots",
        verbose_name=_("project"),
    )
    dataset = models.OneToOneField(
        Dataset,
        on_delete=models.PROTECT,
        related_name="construction_snapshot",
        verbose_name=_("dataset"),
    )
    # "quality" for a scoring round, "published" for the version the project publishes.
    purpose = models.CharField(_("purpose"), max_length=20)
    # Filled by `construct prune`: the saturation analysis it acted on (``Saturation.as_dict``
    # with the judge) and the question ids it proposed for the Hard set, for the difficulty
    # tier and the construction report.
    saturation = models.JSONField(_("saturation analysis"), default=dict, blank=True)
    proposed_hard = models.JSONField(_("proposed hard"), default=list, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        verbose_name=_("created by"),
    )
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)

    class Meta:
        ordering = ["project", "created_at"]
        verbose_name = _("construction snapshot")
        verbose_name_plural = _("construction snapshots")

    def __str__(self) -> str:
        return f"{self.project} → {self.dataset}"


class SnapshotCriterion(models.Model):
    snapshot = models.ForeignKey(
        ConstructionSnapshot,
        on_delete=models.CASCADE,
        related_name="criteria",
        verbose_name=_("snapshot"),
    )
    rubric_item = models.OneToOneField(
        RubricItem,
        on_delete=models.CASCADE,
        related_name="draft_source",
        verbose_name=_("criterion"),
    )
    criterion = models.ForeignKey(
        DraftCriterion,
        on_delete=models.CASCADE,
        related_name="snapshot_items",
        verbose_name=_("draft criterion"),
    )
    criterion_version = models.PositiveIntegerField(_("draft criterion version"))

    class Meta:
        verbose_name = _("snapshot criterion")
        verbose_name_plural = _("snapshot criteria")

    def __str__(self) -> str:
        return f"{self.rubric_item_id} ← {self.criterion_id} v{self.criterion_version}"
