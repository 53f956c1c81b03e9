"""Expert work on a benchmark under construction (the paper's §3 human tiers): marking a
draft's difficulty, reviewing its criteria, and the senior panel's vote.

Construction work has no pool and no unit (a draft is not a case × response of a study), so
its rows live in their own table of the one family of expert work (``LeasedWork``): a task is
leased to one expert, a lease that runs out returns the slot to the queue (the one lease rule,
``annotation.services.leases``), an answer is written once with an audit row. A new kind is
one more ``TaskKind``, an entry in ``annotation.work`` and an answer model of its own.
"""

from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from annotation.models.work import LeasedWork
from benchmark.models import ConstructionProject, DraftCase, DraftCriterion


class TaskKind(models.TextChoices):
    DIFFICULTY = "difficulty", _("difficulty")
    REVIEW = "criterion_review", _("criterion review")
    PANEL = "panel", _("senior panel")


class PanelRule(models.TextChoices):
    UNANIMOUS = "unanimous", _("unanimous")
    MAJORITY = "majority", _("majority")


class ConstructionWork(models.Model):
    """One kind of work opened on a project (``heartbench construct-tasks``): how many
    experts answer each draft, and for the panel, its rule. Closed work hands out nothing."""

    project = models.ForeignKey(
        ConstructionProject,
        on_delete=models.CASCADE,
        related_name="expert_work",
        verbose_name=_("project"),
    )
    kind = models.CharField(_("kind"), max_length=20, choices=TaskKind.choices)
    # Difficulty raters or criterion reviewers per draft, or the panel's size.
    raters = models.PositiveSmallIntegerField(_("experts per draft"))
    panel_rule = models.CharField(
        _("panel rule"), max_length=10, choices=PanelRule.choices, default=PanelRule.UNANIMOUS
    )
    lease_seconds = models.PositiveIntegerField(_("lease (seconds)"), default=30 * 60)
    is_open = models.BooleanField(_("open"), default=True)
    updated_at = models.DateTimeField(_("updated at"), auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["project", "kind"], name="construction_work_once"),
            models.CheckConstraint(condition=Q(raters__gte=1), name="construction_work_raters"),
        ]
        ordering = ["project", "kind"]
        verbose_name = _("construction work")
        verbose_name_plural = _("construction work")

    def __str__(self) -> str:
        return f"{self.project}: {self.kind} × {self.raters}"


class PanelRound(models.Model):
    """One sitting of the senior panel on a draft, opened when the author sends the draft
    (after the reviews); a returned draft is revised and sent again as round n + 1."""

    class Outcome(models.TextChoices):
        PENDING = "pending", _("with the panel")
        ACCEPTED = "accepted", _("accepted")
        RETURNED = "returned", _("returned to the author")

    draft = models.ForeignKey(
        DraftCase, on_delete=models.CASCADE, related_name="panel_rounds", verbose_name=_("draft")
    )
    number = models.PositiveSmallIntegerField(_("round"))
    outcome = models.CharField(
        _("outcome"), max_length=10, choices=Outcome.choices, default=Outcome.PENDING
    )
    opened_at = models.DateTimeField(_("sent at"), auto_now_add=True)
    decided_at = models.DateTimeField(_("decided at"), null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["draft", "number"], name="panel_round_once"),
            models.UniqueConstraint(
                fields=["draft"], condition=Q(outcome="pending"), name="panel_round_one_pending"
            ),
        ]
        ordering = ["draft", "number"]
        verbose_name = _("panel round")
        verbose_name_plural = _("panel rounds")

    def __str__(self) -> str:
        return f"{self.draft} round {self.number}: {self.outcome}"


class ConstructionTask(LeasedWork):
    """One expert's turn at one draft for one kind of work: leased, then submitted once."""

    work = models.ForeignKey(
        ConstructionWork, on_delete=models.CASCADE, related_name="tasks", verbose_name=_("work")
    )
    # The work's kind, copied so the constraints below can name it.
    kind = models.CharField(_("kind"), max_length=20, choices=TaskKind.choices)
    draft = models.ForeignKey(
        DraftCase,
        on_delete=models.CASCADE,
        related_name="expert_tasks",
        verbose_name=_("draft"),
    )
    panel_round = models.ForeignKey(
        PanelRound,
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="tasks",
        verbose_name=_("panel round"),
    )
    expert = models.ForeignKey(
        "annotation.Expert",
        on_delete=models.PROTECT,
        related_name="construction_tasks",
        verbose_name=_("expert"),
    )

    class Meta:
        constraints = [
            # Never the same expert twice on one draft and kind (per panel round: a returned
            # draft meets the panel again). Expired tasks do not count.
            models.UniqueConstraint(
                fields=["draft", "kind", "expert"],
                condition=Q(status__in=["leased", "submitted"], panel_round__isnull=True),
                name="construction_task_expert_once",
            ),
            models.UniqueConstraint(
                fields=["panel_round", "expert"],
                condition=Q(status__in=["leased", "submitted"]),
                name="construction_task_panel_once",
            ),
            # One open lease per expert and kind of work in a project.
            models.UniqueConstraint(
                fields=["work", "expert"],
                condition=Q(status="leased"),
                name="construction_task_one_lease",
            ),
        ]
        indexes = [
            models.Index(fields=["draft", "kind", "status"], name="construction_task_draft_kind")
        ]
        ordering = ["-created_at"]
        verbose_name = _("construction task")
        verbose_name_plural = _("construction tasks")

    def __str__(self) -> str:
        return f"{self.kind} {self.draft} by {self.expert}"


class DifficultyMark(models.Model):
    class Reason(models.TextChoices):
        SURFACE_CUES = "misleading_cues", _("misleading surface cues")
        MIXED_EMOTIONS = "mixed_emotions", _("mixed emotions")
        ETHICAL = "ethical_tradeoff", _("ethical trade-off")
        OTHER = "other", _("other")

    task = models.OneToOneField(
        ConstructionTask,
        on_delete=models.CASCADE,
        related_name="difficulty_mark",
        verbose_name=_("task"),
    )
    difficulty = models.CharField(_("difficulty"), max_length=10)
    # Why the case is hard; blank for a normal mark.
    reason = models.CharField(_("reason"), max_length=20, choices=Reason.choices, blank=True)
    comment = models.TextField(_("comment"), blank=True)

    class Meta:
        verbose_name = _("difficulty mark")
        verbose_name_plural = _("difficulty marks")

    def __str__(self) -> str:
        return f"{self.task_id}: {self.difficulty} {self.reason}"


class CriterionReview(models.Model):
    class Verdict(models.TextChoices):
        CLEAR = "clear", _("clear")
        AMBIGUOUS = "ambiguous", _("ambiguous")
        NOT_BINARY = "not_binary", _("not binary")
        WRONG_ABILITY = "wrong_ability", _("wrong ability")
        REDUNDANT = "redundant", _("redundant")

    task = models.ForeignKey(
        ConstructionTask,
        on_delete=models.CASCADE,
        related_name="criterion_reviews",
        verbose_name=_("task"),
    )
    criterion = models.ForeignKey(
        DraftCriterion,
        on_delete=models.CASCADE,
        related_name="reviews",
        verbose_name=_("criterion"),
    )
    # The version the reviewer read (the author's later revisions answer it).
    criterion_version = models.PositiveIntegerField(_("criterion version"))
    verdict = models.CharField(_("verdict"), max_length=20, choices=Verdict.choices)
    comment = models.TextField(_("comment"), blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["task", "criterion"], name="criterion_review_once"),
        ]
        ordering = ["criterion", "task"]
        verbose_name = _("criterion review")
        verbose_name_plural = _("criterion reviews")

    def __str__(self) -> str:
        return f"{self.criterion_id} v{self.criterion_version}: {self.verdict}"


class PanelVote(models.Model):
    class Vote(models.TextChoices):
        ACCEPT = "accept", _("accept")
        RETURN = "return", _("return")

    task = models.OneToOneField(
        ConstructionTask,
        on_delete=models.CASCADE,
        related_name="panel_vote",
        verbose_name=_("task"),
    )
    vote = models.CharField(_("vote"), max_length=10, choices=Vote.choices)
    reason = models.TextField(_("reason"), blank=True)

    class Meta:
        verbose_name = _("panel vote")
        verbose_name_plural = _("panel votes")

    def __str__(self) -> str:
        return f"{self.task_id}: {self.vote}"
