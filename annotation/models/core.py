"""Experts, the pools of units they rate, leases on units, and their append-only submissions."""

import secrets

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from annotation.models.work import LeasedWork

# The golden standard is a majority of three; the database refuses a fourth rater slot.
MAX_RATERS = 3


def unit_token() -> str:
    return secrets.token_urlsafe(9)


def rater_pseudonym() -> str:
    return f"R-{secrets.token_hex(4)}"


class Expert(models.Model):
    class Tier(models.TextChoices):
        EXPERT = "expert", _("expert")
        SENIOR = "senior", _("senior expert")

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="expert",
        verbose_name=_("user"),
    )
    display_name = models.CharField(_("display name"), max_length=200, blank=True)
    # Scene names (primary scenes of cases) or ability codes the expert knows best.
    specialties = models.JSONField(_("specialties"), default=list, blank=True)
    tier = models.CharField(_("tier"), max_length=10, choices=Tier.choices, default=Tier.EXPERT)
    languages = models.JSONField(_("languages"), default=list, blank=True)
    daily_capacity = models.PositiveIntegerField(_("daily capacity (units)"), default=200)
    is_active = models.BooleanField(_("active"), default=True)
    # A public demo login (`heartbench demo-study`): never enrolled in a study of real data,
    # removed by `heartbench demo-remove`.
    is_demo = models.BooleanField(_("demo account"), default=False)
    # Exports name raters by this, never by user name.
    pseudonym = models.CharField(_("rater id"), max_length=20, unique=True, default=rater_pseudonym)
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)

    class Meta:
        ordering = ["user__username"]
        verbose_name = _("expert")
        verbose_name_plural = _("experts")

    def __str__(self) -> str:
        return self.display_name or self.user.get_username()

    @property
    def is_senior(self) -> bool:
        return self.tier == self.Tier.SENIOR


def could_name_a_study(value: str) -> bool:
    """False for what no stored study (pool) name holds: a NUL character. PostgreSQL's text
    cannot hold one, and a lookup with it is an error there (a 500), not a miss."""
    return "\x00" not in value


class Pool(models.Model):
    """The units of one study as the annotation side sees them: who may rate, how, and when."""

    class Status(models.TextChoices):
        DRAFT = "draft", _("draft")
        OPEN = "open", _("open")
        CLOSED = "closed", _("closed")

    class QuestionType(models.TextChoices):
        # Each unit is one response, rated criterion by criterion.
        RUBRIC = "rubric", _("rubric criteria")
        # Each unit is a pair of responses to one case: the expert chooses A, B or a tie.
        PAIRWISE = "pairwise", _("pairwise choice")

    name = models.CharField(_("name"), max_length=200, unique=True)
    status = models.CharField(
        _("status"), max_length=10, choices=Status.choices, default=Status.DRAFT
    )
    question_type = models.CharField(
        _("question type"),
        max_length=10,
        choices=QuestionType.choices,
        default=QuestionType.RUBRIC,
        editable=False,
    )
    raters_per_unit = models.PositiveSmallIntegerField(_("raters per unit"), default=MAX_RATERS)
    lease_seconds = models.PositiveIntegerField(_("lease (seconds)"), default=30 * 60)
    show_ability = models.BooleanField(_("show the ability to experts"), default=False)
    experts = models.ManyToManyField(
        Expert, related_name="pools", blank=True, verbose_name=_("experts")
    )
    # Admin policy: study work only after passing this calibration set (null: no gate) ...
    calibration = models.ForeignKey(
        "annotation.CalibrationSet",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="required_by",
        verbose_name=_("required calibration set"),
    )
    # ... and again whenever the expert's running agreement falls below this bar.
    min_quality = models.FloatField(_("minimum quality"), null=True, blank=True)
    # Hard cases only to experts whose quality reaches this bar (null: anyone may take them).
    hard_min_quality = models.FloatField(_("minimum quality for hard cases"), null=True, blank=True)
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)
    # When a claim last marked the pool's run-out leases expired (at most once a minute,
    # ``annotation.services.claims``); read with the pool by every claim, so deciding costs
    # no round trip of its own.
    leases_swept_at = models.DateTimeField(_("leases swept at"), null=True, editable=False)
    # The pool's units, written with them (``annotation.services.core.pool_units_create``;
    # a pool's units are made once, with the pool): the first and last unit id, from which a
    # claim draws where its window starts, and how many there are.
    unit_id_first = models.BigIntegerField(_("first unit id"), null=True, editable=False)
    unit_id_last = models.BigIntegerField(_("last unit id"), null=True, editable=False)
    units_total = models.PositiveIntegerField(_("units"), default=0, editable=False)

    class Meta:
        ordering = ["name"]
        verbose_name = _("pool")
        verbose_name_plural = _("pools")
        constraints = [
            models.CheckConstraint(
                condition=Q(raters_per_unit__gte=1, raters_per_unit__lte=MAX_RATERS),
                name="pool_raters_1_to_max",
            ),
            models.CheckConstraint(
                condition=Q(min_quality__isnull=True) | Q(min_quality__gte=0, min_quality__lte=1),
                name="pool_min_quality_0_1",
            ),
            models.CheckConstraint(
                condition=Q(hard_min_quality__isnull=True)
                | Q(hard_min_quality__gte=0, hard_min_quality__lte=1),
                name="pool_hard_min_quality_0_1",
            ),
        ]

    def __str__(self) -> str:
        return self.name


def _pool_member_str(self) -> str:
    return str(self.expert)


# The pool-expert table is Django's own (no migration): named here so that the admin's delete
# summary reads "Pool member: <expert>", not "Pool_experts object (49)", in either language.
Pool.experts.through.__str__ = _pool_member_str
Pool.experts.through._meta.verbose_name = _("pool member")
Pool.experts.through._meta.verbose_name_plural = _("pool members")


class PoolTally(models.Model):
    """What a pool's work added up to so far, counted as it is recorded, so the progress line
    reads a number instead of counting the pool's units on every claim: the sum of the pool's
    rows, one per shard.

    Rows of their own, not the pool's: the submit that completes a unit counts it last in its
    transaction (``annotation.services.submissions.pool_count_complete``), in the row of the
    unit's shard (its id modulo ``SHARDS``), and nothing else locks these rows. A row is held
    until that transaction commits, so the submits of a crowd's last third, nearly all of them
    last ratings, would queue on a single row one commit after another; spread over the shards
    they seldom meet. They never wait on a transaction that holds the pool and waits for their
    assignments (closing the study). Made by a shard's first count; a pool without rows has
    none complete."""

    SHARDS = 16

    pool = models.ForeignKey(
        Pool, on_delete=models.CASCADE, related_name="tallies", verbose_name=_("pool")
    )
    shard = models.PositiveSmallIntegerField(_("shard"), default=0)
    units_complete = models.PositiveIntegerField(_("units complete"), default=0)

    class Meta:
        verbose_name = _("pool tally")
        verbose_name_plural = _("pool tallies")
        constraints = [
            models.UniqueConstraint(fields=["pool", "shard"], name="pool_tally_shard_unique")
        ]

    def __str__(self) -> str:
        return f"{self.pool} ({self.shard}): {self.units_complete}"


class Unit(models.Model):
    """One model response to one case (or, in a pairwise pool, a pair of responses to one
    case), shown to experts only under its opaque token."""

    pool = models.ForeignKey(
        Pool, on_delete=models.CASCADE, related_name="units", verbose_name=_("pool")
    )
    response = models.ForeignKey(
        "benchmark.Response",
        on_delete=models.PROTECT,
        related_name="annotation_units",
        verbose_name=_("response"),
    )
    # A pairwise pool's unit: the pair, whose stored first response is ``response`` (so the
    # case, its scene and its difficulty read as for any unit); null in a rubric pool.
    pair = models.ForeignKey(
        "benchmark.PairwisePair",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="annotation_units",
        verbose_name=_("response pair"),
    )
    token = models.CharField(_("unit token"), max_length=20, unique=True, default=unit_token)
    # The senior queue's record: set when the pool closed before three ratings arrived (a
    # senior's labels decide) or a criterion split. Written only by validation's settling
    # service (validation.services.settle), with the study unit's state, through
    # ``unit_queue_adjudication`` and ``units_mark_for_adjudication``.
    needs_adjudication = models.BooleanField(_("needs adjudication"), default=False)
    # The criteria a senior decides (a 2/1 split on a criterion the study chose); empty means
    # the whole unit (it never got three ratings).
    adjudicate_items = models.JSONField(_("criteria to adjudicate"), default=list, blank=True)
    # Every rater slot holds a submitted rating: set by the submit that counts the last one
    # (under the unit's lock) and never cleared, as submissions are final. The claim's walk
    # over the pool skips these units by index instead of counting their raters again.
    ratings_complete = models.BooleanField(_("ratings complete"), default=False)
    # The unit's rating submissions, counted by the submit that stores one in the same
    # statement that locks the unit and sets ``ratings_complete`` (submissions are never
    # deleted, and a revision replaces labels, not submissions).
    ratings = models.PositiveSmallIntegerField(_("ratings"), default=0)

    class Meta:
        ordering = ["pool", "id"]
        verbose_name = _("unit")
        verbose_name_plural = _("units")
        constraints = [
            models.UniqueConstraint(
                fields=["pool", "response"],
                condition=Q(pair__isnull=True),
                name="unit_pool_response",
            ),
            models.UniqueConstraint(
                fields=["pool", "pair"], condition=Q(pair__isnull=False), name="unit_pool_pair"
            ),
        ]
        # The claim reads a window of a pool's units still waiting for ratings, in id order
        # from a point on (``annotation.selectors.work.rating_candidates``).
        indexes = [
            models.Index(
                fields=["pool", "id"],
                name="unit_pool_waiting",
                condition=Q(ratings_complete=False),
            )
        ]

    def __str__(self) -> str:
        return f"{self.pool} · {self.token}"


ACTIVE = ("leased", "submitted")


class Assignment(LeasedWork):
    class Kind(models.TextChoices):
        RATING = "rating", _("rating")
        ADJUDICATION = "adjudication", _("adjudication")
        # Every expert rates every unit of a calibration set, once per attempt, so it has no
        # rater slot; the attempt ties the assignments of one sitting together.
        CALIBRATION = "calibration", _("calibration")

    pool = models.ForeignKey(
        Pool, on_delete=models.CASCADE, related_name="assignments", verbose_name=_("pool")
    )
    unit = models.ForeignKey(
        Unit, on_delete=models.CASCADE, related_name="assignments", verbose_name=_("unit")
    )
    expert = models.ForeignKey(
        Expert, on_delete=models.PROTECT, related_name="assignments", verbose_name=_("expert")
    )
    kind = models.CharField(_("kind"), max_length=15, choices=Kind.choices, default=Kind.RATING)
    # Rater slot 1..MAX_RATERS for ratings, null for adjudication.
    slot = models.PositiveSmallIntegerField(_("rater slot"), null=True, blank=True)
    attempt = models.ForeignKey(
        "annotation.CalibrationAttempt",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="assignments",
        verbose_name=_("calibration attempt"),
    )
    # Seeds the per-assignment criterion order and ids, so a reload shows the same page.
    shuffle_seed = models.BigIntegerField(_("shuffle seed"), default=0)
    # The autosaved, unsubmitted labels, keyed by the assignment's opaque criterion ids, and
    # the active time on the unit so far (idle and hidden-tab time excluded), so a reload
    # neither loses them nor starts the count again. Written by autosave with the lease in one
    # statement, only while the assignment is leased; the submit clears them.
    draft_labels = models.JSONField(_("draft labels"), default=dict, blank=True)
    draft_active_seconds = models.PositiveIntegerField(_("draft active seconds"), default=0)
    draft_saved_at = models.DateTimeField(_("draft saved at"), null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name = _("assignment")
        verbose_name_plural = _("assignments")
        constraints = [
            # The invariants live in the database so no race in Python can break them.
            models.UniqueConstraint(
                fields=["unit", "expert"],
                condition=Q(status__in=ACTIVE, kind="rating"),
                name="assignment_one_active_per_expert_unit",
            ),
            models.UniqueConstraint(
                fields=["unit", "slot"],
                condition=Q(status__in=ACTIVE, kind="rating"),
                name="assignment_unit_slot_active",
            ),
            models.UniqueConstraint(
                fields=["unit"],
                condition=Q(status__in=ACTIVE, kind="adjudication"),
                name="assignment_one_adjudication_per_unit",
            ),
            models.UniqueConstraint(
                fields=["pool", "expert"],
                condition=Q(status="leased"),
                name="assignment_one_open_lease_per_expert_pool",
            ),
            models.UniqueConstraint(
                fields=["unit", "attempt"],
                condition=Q(status__in=ACTIVE, kind="calibration"),
                name="assignment_calibration_once_per_attempt",
            ),
            models.CheckConstraint(
                condition=(Q(kind="rating", slot__gte=1, slot__lte=MAX_RATERS))
                | Q(kind="adjudication", slot__isnull=True)
                | Q(kind="calibration", slot__isnull=True, attempt__isnull=False),
                name="assignment_slot_in_range",
            ),
        ]
        indexes = [models.Index(fields=["status", "lease_expires_at"])]

    def __str__(self) -> str:
        return f"{self.public_id} ({self.status})"


class Submission(models.Model):
    """A complete set of labels for a unit.

    Its rater may revise it while the unit is not complete: the labels are replaced, the
    version goes up and the earlier version is kept as a ``SubmissionVersion``.
    """

    assignment = models.OneToOneField(
        Assignment,
        on_delete=models.PROTECT,
        related_name="submission",
        verbose_name=_("assignment"),
    )
    unit = models.ForeignKey(
        Unit, on_delete=models.PROTECT, related_name="submissions", verbose_name=_("unit")
    )
    expert = models.ForeignKey(
        Expert, on_delete=models.PROTECT, related_name="submissions", verbose_name=_("expert")
    )
    kind = models.CharField(_("kind"), max_length=15, choices=Assignment.Kind.choices)
    slot = models.PositiveSmallIntegerField(_("rater slot"), null=True, blank=True)
    submitted_at = models.DateTimeField(_("submitted at"), auto_now_add=True)
    version = models.PositiveSmallIntegerField(_("version"), default=1)
    # When the current version was made by a revision; ``submitted_at`` stays the first
    # submission's time (today's capacity, the pay day and the charts count that one).
    revised_at = models.DateTimeField(_("revised at"), null=True, blank=True)
    # Active time on the unit (idle and hidden-tab time excluded); None when not measured
    # (an API client that does not send it).
    active_seconds = models.PositiveIntegerField(_("active seconds"), null=True, blank=True)

    class Meta:
        ordering = ["unit", "slot", "id"]
        verbose_name = _("submission")
        verbose_name_plural = _("submissions")
        constraints = [
            models.UniqueConstraint(
                fields=["unit", "expert"], condition=Q(kind="rating"), name="submission_unit_expert"
            ),
            models.UniqueConstraint(
                fields=["unit", "slot"], condition=Q(kind="rating"), name="submission_unit_slot"
            ),
            models.UniqueConstraint(
                fields=["unit"],
                condition=Q(kind="adjudication"),
                name="submission_one_adjudication",
            ),
            models.CheckConstraint(
                condition=(Q(kind="rating", slot__gte=1, slot__lte=MAX_RATERS))
                | Q(kind__in=["adjudication", "calibration"], slot__isnull=True),
                name="submission_slot_in_range",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.unit} by {self.expert} ({self.kind})"


class Label(models.Model):
    submission = models.ForeignKey(
        Submission, on_delete=models.PROTECT, related_name="labels", verbose_name=_("submission")
    )
    rubric_item = models.ForeignKey(
        "benchmark.RubricItem",
        on_delete=models.PROTECT,
        related_name="expert_labels",
        verbose_name=_("criterion"),
    )
    hit = models.BooleanField(_("met"))
    # For an adjudication: the senior's reason for the decision.
    note = models.TextField(_("note"), blank=True)
    # The version of the criterion the expert was shown.
    rubric_version = models.PositiveIntegerField(_("criterion version"), default=1)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["submission", "rubric_item"], name="label_once"),
        ]
        verbose_name = _("label")
        verbose_name_plural = _("labels")

    def __str__(self) -> str:
        return f"{self.rubric_item_id}: {'hit' if self.hit else 'miss'}"


class PairwiseChoice(models.Model):
    """A rating submission's answer on a pair: which response is better, in the pair's stored
    order (``a`` is the pair's ``response_a``), and which of the two the expert saw first."""

    class Winner(models.TextChoices):
        A = "a", _("response a")
        B = "b", _("response b")
        TIE = "tie", _("tie")

    class Shown(models.TextChoices):
        A = "a", _("response a first")
        B = "b", _("response b first")

    submission = models.OneToOneField(
        Submission, on_delete=models.PROTECT, related_name="choice", verbose_name=_("submission")
    )
    winner = models.CharField(_("winner"), max_length=3, choices=Winner.choices)
    first_shown = models.CharField(_("shown first"), max_length=1, choices=Shown.choices)
    reason = models.TextField(_("reason"), blank=True)

    class Meta:
        verbose_name = _("pairwise choice")
        verbose_name_plural = _("pairwise choices")

    def __str__(self) -> str:
        return f"{self.submission_id}: {self.winner}"


class PeerAgreement(models.Model):
    """A rating submission's pairwise agreement with the other raters of its unit.

    Written once, in the transaction of the submit that completes the unit (all the pool's
    raters, at least two, submitted); never edited, as the labels it counts. The dashboard
    sums these rows instead of comparing every label again.
    """

    submission = models.OneToOneField(
        Submission,
        on_delete=models.PROTECT,
        primary_key=True,
        related_name="peer_agreement",
        verbose_name=_("submission"),
    )
    # Copies of the submission's, so the sums need no join.
    pool = models.ForeignKey(
        Pool, on_delete=models.PROTECT, related_name="+", verbose_name=_("pool")
    )
    expert = models.ForeignKey(
        Expert, on_delete=models.PROTECT, related_name="+", verbose_name=_("expert")
    )
    agreed = models.PositiveIntegerField(_("agreeing comparisons"))
    compared = models.PositiveIntegerField(_("comparisons"))

    class Meta:
        indexes = [models.Index(fields=["pool", "expert"], name="peer_agreement_pool_expert")]
        verbose_name = _("peer agreement")
        verbose_name_plural = _("peer agreements")

    def __str__(self) -> str:
        return f"{self.submission_id}: {self.agreed}/{self.compared}"
