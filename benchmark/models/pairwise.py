"""Pairwise comparison: named sets of response pairs, and the judge's runs choosing between them.

A pair is stored in one canonical order (``response_a`` is the response of the model whose name
sorts first). Which response is *shown* first is decided per judge call (both orders, always)
or per expert assignment, never stored on the pair.
"""

from django.db import models
from django.db.models import F, Q
from django.db.models.functions import Greatest, Least
from django.utils.translation import gettext_lazy as _

from benchmark.models.core import Case, Dataset, Judge, LLMRun, ModelUnderTest, Response


class PairwiseSet(models.Model):
    """Pairs of answers already in the platform, drawn once for a dataset and some models."""

    name = models.CharField(_("name"), max_length=200, unique=True)
    dataset = models.ForeignKey(
        Dataset, on_delete=models.CASCADE, related_name="pairwise_sets", verbose_name=_("dataset")
    )
    models_under_test = models.ManyToManyField(
        ModelUnderTest, related_name="pairwise_sets", verbose_name=_("models")
    )
    # How the pairs were drawn: every pair when ``sample`` is empty, else a stratified sample.
    sample = models.PositiveIntegerField(_("pairs sampled"), null=True, blank=True)
    seed = models.BigIntegerField(_("seed"), null=True, blank=True)
    max_score_gap = models.FloatField(_("largest rubric score gap"), null=True, blank=True)
    score_judge = models.CharField(
        _("judge of the rubric scores"), max_length=200, blank=True, help_text=_("For the gap.")
    )
    # What the draw found: candidates, kept by the gap, per stratum sampled / available.
    draw_summary = models.JSONField(_("draw summary"), default=dict, blank=True)
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)

    class Meta:
        ordering = ["name"]
        verbose_name = _("pairwise set")
        verbose_name_plural = _("pairwise sets")

    def __str__(self) -> str:
        return self.name


class PairwisePair(models.Model):
    """Two different responses to one case, in canonical order, once per set."""

    pair_set = models.ForeignKey(
        PairwiseSet, on_delete=models.CASCADE, related_name="pairs", verbose_name=_("pairwise set")
    )
    case = models.ForeignKey(
        Case, on_delete=models.CASCADE, related_name="pairwise_pairs", verbose_name=_("case")
    )
    response_a = models.ForeignKey(
        Response, on_delete=models.CASCADE, related_name="+", verbose_name=_("response a")
    )
    response_b = models.ForeignKey(
        Response, on_delete=models.CASCADE, related_name="+", verbose_name=_("response b")
    )

    class Meta:
        ordering = ["pair_set", "case__position", "id"]
        verbose_name = _("response pair")
        verbose_name_plural = _("response pairs")
        constraints = [
            models.CheckConstraint(
                condition=~Q(response_a=F("response_b")), name="pairwise_pair_two_responses"
            ),
            # Once per set in either order: (x, y) and (y, x) are the same pair.
            models.UniqueConstraint(
                "pair_set",
                Least("response_a", "response_b"),
                Greatest("response_a", "response_b"),
                name="pairwise_pair_once",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.pair_set_id}: {self.response_a_id} / {self.response_b_id}"


class PairwiseRun(LLMRun):
    """One judge choosing over a pairwise set, each pair in both orders (a unit is one order)."""

    judge = models.ForeignKey(
        Judge, on_delete=models.PROTECT, related_name="pairwise_runs", verbose_name=_("judge")
    )
    pair_set = models.ForeignKey(
        PairwiseSet, on_delete=models.CASCADE, related_name="runs", verbose_name=_("pairwise set")
    )
    template = models.CharField(
        _("prompt template file"), max_length=500, blank=True, help_text=_("Empty: the built-in.")
    )

    class Meta(LLMRun.Meta):
        verbose_name = _("pairwise judge run")
        verbose_name_plural = _("pairwise judge runs")

    def __str__(self) -> str:
        return f"pairwise run {self.pk}: {self.judge} on {self.pair_set}"


class PairwiseVerdict(models.Model):
    """The judge's choice on one pair in one order: as shown, and mapped back to the pair."""

    class Order(models.TextChoices):
        STORED = "ab", _("as stored (a shown first)")
        SWAPPED = "ba", _("swapped (b shown first)")

    class Choice(models.TextChoices):
        A = "a", _("response a")
        B = "b", _("response b")
        TIE = "tie", _("tie")
        ERROR = "error", _("error")

    run = models.ForeignKey(
        PairwiseRun, on_delete=models.CASCADE, related_name="verdicts", verbose_name=_("run")
    )
    pair = models.ForeignKey(
        PairwisePair, on_delete=models.CASCADE, related_name="verdicts", verbose_name=_("pair")
    )
    order = models.CharField(_("order shown"), max_length=2, choices=Order.choices)
    # "A", "B" or "tie" as the judge wrote it about the order shown; empty for an error.
    shown_choice = models.CharField(_("choice as shown"), max_length=3, blank=True)
    choice = models.CharField(_("choice"), max_length=5, choices=Choice.choices)
    reasoning = models.TextField(_("reasoning"), blank=True)
    raw_reply = models.TextField(_("raw reply"), blank=True)
    tokens_in = models.PositiveIntegerField(_("input tokens"), default=0)
    tokens_out = models.PositiveIntegerField(_("output tokens"), default=0)
    cached = models.BooleanField(_("from the cache"), default=False)
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)

    class Meta:
        verbose_name = _("pairwise verdict")
        verbose_name_plural = _("pairwise verdicts")
        constraints = [
            models.UniqueConstraint(fields=["run", "pair", "order"], name="pairwise_verdict_once"),
            models.CheckConstraint(
                condition=Q(order__in=["ab", "ba"]), name="pairwise_verdict_order"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.pair_id} {self.order}: {self.choice}"
