"""Blind agreement studies: what was sampled, for which judge runs, and the golden standard."""

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from benchmark.stored_rows import StoredValue
from validation.closing import DROP_REASONS
from validation.naming import validate_study_name

DEFAULT_STRATA = ["difficulty", "primary_scene"]


# validation.gate.GateConfig's names → the Study fields that hold them.
GATE_FIELDS = {
    "agreement_min": "gate_threshold",
    "noninferiority_margin": "gate_noninferiority_margin",
    "catastrophic_recall_min": "gate_catastrophic_recall",
    "catastrophic_min_hits": "gate_catastrophic_min_hits",
    "score_bias_max": "gate_score_bias",
}


def default_strata() -> list[str]:
    return list(DEFAULT_STRATA)


class Study(models.Model):
    # New names follow validation.naming; older ones may hold anything (URLs carry any name).
    name = models.CharField(
        _("name"), max_length=200, unique=True, validators=[validate_study_name]
    )
    # The annotation side of the study: its units, experts, leases and lifecycle.
    pool = models.OneToOneField(
        "annotation.Pool",
        on_delete=models.PROTECT,
        related_name="study",
        verbose_name=_("pool"),
    )
    dataset = models.ForeignKey(
        "benchmark.Dataset",
        on_delete=models.PROTECT,
        related_name="+",
        verbose_name=_("dataset"),
    )
    models_under_test = models.ManyToManyField(
        "benchmark.ModelUnderTest", related_name="+", verbose_name=_("models under test")
    )
    judge_runs = models.ManyToManyField(
        "benchmark.JudgeRun", related_name="+", blank=True, verbose_name=_("judge runs")
    )
    # A pairwise study: the experts choose between the pairs of this set drawn for the sampled
    # cases, and the judge's pairwise runs over the set are what it validates. Empty: a rubric
    # study over the models' responses.
    pair_set = models.ForeignKey(
        "benchmark.PairwiseSet",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
        verbose_name=_("pairwise set"),
    )
    fraction = models.FloatField(_("sampled fraction of cases"), default=0.3)
    stratify_by = models.JSONField(_("stratify by"), default=default_strata)
    seed = models.BigIntegerField(_("random seed"))
    sampling = models.JSONField(
        _("sampling"), default=dict, blank=True, help_text=_("Cases per stratum.")
    )
    # The HeartBench authors accept a judge at 75 % item-level agreement with the gold.
    gate_threshold = models.FloatField(
        _("gate threshold"),
        default=0.75,
        help_text=_("The judge passes at this agreement with the golden standard."),
    )
    # The planner's answer when the fraction was planned (validation.statistics.planning.Plan:
    # cases, half_width, expected_agreement, design_effect, icc, icc_source, ...); empty when
    # the fraction was chosen by hand.
    plan = models.JSONField(_("plan"), default=dict, blank=True)
    # Group-sequential monitoring: the gate is looked at every this many completed cases
    # (validation.statistics.sequential); empty: only at the close.
    look_every = models.PositiveIntegerField(
        _("look every (completed cases)"), null=True, blank=True
    )
    # The other conditions of the gate (validation.gate): defaults from issue 17.
    gate_noninferiority_margin = models.FloatField(
        _("non-inferiority margin"),
        default=0.05,
        help_text=_(
            "The judge passes when the lower 95% bound of judge − experts (macro-F1) "
            "reaches minus this margin."
        ),
    )
    gate_catastrophic_recall = models.FloatField(
        _("catastrophic recall threshold"),
        default=0.8,
        help_text=_("Lower 95% bound of the judge's recall on gold catastrophic hits."),
    )
    gate_catastrophic_min_hits = models.PositiveIntegerField(
        _("catastrophic hits needed"),
        default=10,
        help_text=_("Below this many gold catastrophic hits the condition lacks data."),
    )
    gate_score_bias = models.FloatField(
        _("score bias limit (points)"),
        default=5.0,
        help_text=_("Judge − gold score of every model within ±this, its whole 95% CI."),
    )
    # Ability codes (or "*" for every criterion) on which a 2/1 split goes to a senior.
    adjudicate_splits = models.JSONField(_("adjudicate 2/1 splits on"), default=list, blank=True)
    # The date the study should close by; the dashboard warns when the pace will miss it.
    due_date = models.DateField(_("due date"), null=True, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        verbose_name=_("created by"),
    )
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)
    opened_at = models.DateTimeField(_("opened at"), null=True, blank=True)
    closed_at = models.DateTimeField(_("closed at"), null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name = _("study")
        verbose_name_plural = _("studies")
        constraints = [
            models.CheckConstraint(
                condition=Q(fraction__gt=0, fraction__lte=1), name="study_fraction_0_1"
            ),
            models.CheckConstraint(
                condition=Q(gate_threshold__gte=0, gate_threshold__lte=1),
                name="study_gate_threshold_0_1",
            ),
            models.CheckConstraint(
                condition=Q(look_every__isnull=True) | Q(look_every__gte=1),
                name="study_look_every_positive",
            ),
            models.CheckConstraint(
                condition=Q(gate_noninferiority_margin__gte=0, gate_noninferiority_margin__lte=1),
                name="study_gate_margin_0_1",
            ),
            models.CheckConstraint(
                condition=Q(gate_catastrophic_recall__gte=0, gate_catastrophic_recall__lte=1),
                name="study_gate_catastrophic_recall_0_1",
            ),
            models.CheckConstraint(
                condition=Q(gate_score_bias__gte=0, gate_score_bias__lte=100),
                name="study_gate_score_bias_0_100",
            ),
        ]

    def __str__(self) -> str:
        return self.name

    @property
    def gate_config(self) -> dict:
        """The gate's configuration in ``validation.gate.GateConfig`` terms."""
        return {name: getattr(self, column) for name, column in GATE_FIELDS.items()}

    @property
    def status(self) -> str:
        return self.pool.status

    @property
    def is_pairwise(self) -> bool:
        return self.pair_set_id is not None

    @property
    def planned_cases(self) -> int:
        """Cases the study set out to rate: those sampled (the planner's number when planned)."""
        return sum(s["sampled"] for s in self.sampling.values())


def _study_model_str(self) -> str:
    return str(self.modelundertest)


def _study_judge_run_str(self) -> str:
    return str(self.judgerun)


# Django's own tables for the two lists (no migration): named so that the admin's delete
# summary reads "Model in study: <model>", not "Study_models_under_test object (1)".
Study.models_under_test.through.__str__ = _study_model_str
Study.models_under_test.through._meta.verbose_name = _("model in study")
Study.models_under_test.through._meta.verbose_name_plural = _("models in study")
Study.judge_runs.through.__str__ = _study_judge_run_str
Study.judge_runs.through._meta.verbose_name = _("judge run in study")
Study.judge_runs.through._meta.verbose_name_plural = _("judge runs in study")


class StudyUnit(models.Model):
    class State(models.TextChoices):
        PENDING = "pending", _("pending")
        GOLD = "gold", _("gold")
        INCOMPLETE = "incomplete", _("incomplete")
        # Three ratings are in, but a criterion the study chose split 2/1: a senior decides.
        AWAITING = "awaiting", _("awaiting adjudication")
        ADJUDICATED = "adjudicated", _("adjudicated")
        # Left out of the sample when the study closed (drop_reason says why): listed in the
        # report, never counted as agreement or as missing coverage.
        DROPPED = "dropped", _("dropped")

    study = models.ForeignKey(
        Study, on_delete=models.CASCADE, related_name="units", verbose_name=_("study")
    )
    unit = models.OneToOneField(
        "annotation.Unit", on_delete=models.PROTECT, related_name="+", verbose_name=_("unit")
    )
    case = models.ForeignKey(
        "benchmark.Case", on_delete=models.PROTECT, related_name="+", verbose_name=_("case")
    )
    # Empty for a pair, which names both of its models (``unit.pair``).
    model = models.ForeignKey(
        "benchmark.ModelUnderTest",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
        verbose_name=_("model"),
    )
    stratum = models.CharField(_("stratum"), max_length=300)
    state = models.CharField(
        _("state"), max_length=12, choices=State.choices, default=State.PENDING
    )
    drop_reason = models.CharField(
        _("drop reason"),
        max_length=20,
        choices=list(DROP_REASONS.items()),
        blank=True,
        default="",
    )

    class Meta:
        ordering = ["study", "id"]
        verbose_name = _("study unit")
        verbose_name_plural = _("study units")
        constraints = [
            models.UniqueConstraint(fields=["study", "case", "model"], name="studyunit_case_model"),
            models.CheckConstraint(
                condition=(Q(state="dropped") & ~Q(drop_reason=""))
                | (~Q(state="dropped") & Q(drop_reason="")),
                name="studyunit_dropped_with_reason",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.study} · {self.case} × {self.model}"


class GoldLabel(models.Model):
    class Provenance(models.TextChoices):
        UNANIMOUS = "3/3", _("3/3 unanimous")
        MAJORITY = "2/1", _("2/1 majority")
        ADJUDICATED = "adjudicated", _("adjudicated")

    study_unit = models.ForeignKey(
        StudyUnit, on_delete=models.CASCADE, related_name="gold", verbose_name=_("study unit")
    )
    rubric_item = models.ForeignKey(
        "benchmark.RubricItem",
        on_delete=models.PROTECT,
        related_name="+",
        verbose_name=_("criterion"),
    )
    hit = models.BooleanField(_("met"))
    provenance = models.CharField(_("provenance"), max_length=12, choices=Provenance.choices)
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["study_unit", "rubric_item"], name="gold_once"),
        ]
        verbose_name = _("gold label")
        verbose_name_plural = _("gold labels")

    def __str__(self) -> str:
        return f"{self.rubric_item_id}: {'hit' if self.hit else 'miss'} ({self.provenance})"


class PairwiseGold(models.Model):
    """The golden standard of a pair: the raters' majority choice, or a senior's where they
    split three ways; ``winner`` in the pair's stored order (``a``: its ``response_a``)."""

    study_unit = models.OneToOneField(
        StudyUnit,
        on_delete=models.CASCADE,
        related_name="pairwise_gold",
        verbose_name=_("study unit"),
    )
    winner = models.CharField(
        _("preferred"),
        max_length=3,
        choices=[("a", _("response A")), ("b", _("response B")), ("tie", _("tie"))],
    )
    provenance = models.CharField(
        _("provenance"), max_length=12, choices=GoldLabel.Provenance.choices
    )
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)

    class Meta:
        verbose_name = _("pairwise gold")
        verbose_name_plural = _("pairwise gold")

    def __str__(self) -> str:
        return f"{self.winner} ({self.provenance})"


class StoredFigures(StoredValue):
    """Figures of a closed study computed once and kept as data (``validation.services.
    stored``), so a restart or an emptied cache does not compute them again. The key hashes
    what they are (``kind``) with the study's report fingerprint, which changes whenever an
    input or the code computing them does: a changed study is computed afresh under a new key."""

    study = models.ForeignKey(
        Study, on_delete=models.CASCADE, related_name="+", verbose_name=_("study")
    )

    class Meta(StoredValue.Meta):
        verbose_name = _("stored figures")
        verbose_name_plural = _("stored figures")

    def __str__(self) -> str:
        return f"{self.study} · {self.kind}"
