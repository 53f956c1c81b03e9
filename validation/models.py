"""Blind agreement studies: what was sampled, for which judge runs, and the golden standard."""

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

DEFAULT_STRATA = ["difficulty", "primary_scene"]


def default_strata() -> list[str]:
    return list(DEFAULT_STRATA)


class Study(models.Model):
    name = models.CharField(max_length=200, unique=True)
    # The annotation side of the study: its units, experts, leases and lifecycle.
    pool = models.OneToOneField("annotation.Pool", on_delete=models.PROTECT, related_name="study")
    dataset = models.ForeignKey("benchmark.Dataset", on_delete=models.PROTECT, related_name="+")
    models_under_test = models.ManyToManyField("benchmark.ModelUnderTest", related_name="+")
    judge_runs = models.ManyToManyField("benchmark.JudgeRun", related_name="+", blank=True)
    fraction = models.FloatField(default=0.3)
    stratify_by = models.JSONField(default=default_strata)
    seed = models.BigIntegerField()
    sampling = models.JSONField(default=dict, blank=True, help_text="cases per stratum")
    # The HeartBench authors accept a judge at 75 % item-level agreement with the gold.
    gate_threshold = models.FloatField(
        default=0.75, help_text="the judge passes at this agreement with the golden standard"
    )
    # Ability codes (or "*" for every criterion) on which a 2/1 split goes to a senior.
    adjudicate_splits = models.JSONField(default=list, blank=True)
    # The date the study should close by; the dashboard warns when the pace will miss it.
    due_date = models.DateField(null=True, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL
    )
    created_at = models.DateTimeField(auto_now_add=True)
    opened_at = models.DateTimeField(null=True, blank=True)
    closed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name_plural = "studies"
        constraints = [
            models.CheckConstraint(
                condition=Q(fraction__gt=0, fraction__lte=1), name="study_fraction_0_1"
            ),
            models.CheckConstraint(
                condition=Q(gate_threshold__gte=0, gate_threshold__lte=1),
                name="study_gate_threshold_0_1",
            ),
        ]

    def __str__(self) -> str:
        return self.name

    @property
    def status(self) -> str:
        return self.pool.status


class StudyUnit(models.Model):
    class State(models.TextChoices):
        PENDING = "pending"
        GOLD = "gold"
        INCOMPLETE = "incomplete"
        # Three ratings are in, but a criterion the study chose split 2/1: a senior decides.
        AWAITING = "awaiting", _("awaiting adjudication")
        ADJUDICATED = "adjudicated"

    study = models.ForeignKey(Study, on_delete=models.CASCADE, related_name="units")
    unit = models.OneToOneField("annotation.Unit", on_delete=models.PROTECT, related_name="+")
    case = models.ForeignKey("benchmark.Case", on_delete=models.PROTECT, related_name="+")
    model = models.ForeignKey(
        "benchmark.ModelUnderTest", on_delete=models.PROTECT, related_name="+"
    )
    stratum = models.CharField(max_length=300)
    state = models.CharField(max_length=12, choices=State.choices, default=State.PENDING)

    class Meta:
        ordering = ["study", "id"]
        constraints = [
            models.UniqueConstraint(fields=["study", "case", "model"], name="studyunit_case_model"),
        ]

    def __str__(self) -> str:
        return f"{self.study} · {self.case} × {self.model}"


class GoldLabel(models.Model):
    class Provenance(models.TextChoices):
        UNANIMOUS = "3/3"
        MAJORITY = "2/1"
        ADJUDICATED = "adjudicated"

    study_unit = models.ForeignKey(StudyUnit, on_delete=models.CASCADE, related_name="gold")
    rubric_item = models.ForeignKey(
        "benchmark.RubricItem", on_delete=models.PROTECT, related_name="+"
    )
    hit = models.BooleanField()
    provenance = models.CharField(max_length=12, choices=Provenance.choices)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["study_unit", "rubric_item"], name="gold_once"),
        ]

    def __str__(self) -> str:
        return f"{self.rubric_item_id}: {'hit' if self.hit else 'miss'} ({self.provenance})"
