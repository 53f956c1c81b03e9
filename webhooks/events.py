"""The events a webhook endpoint may subscribe to (the one list of their names)."""

from django.db import models
from django.utils.translation import gettext_lazy as _


class Event(models.TextChoices):
    UNIT_COMPLETED = "unit.completed", _("unit completed (all its ratings are in)")
    GOLD_READY = "gold.ready", _("gold ready for a unit")
    STUDY_OPENED = "study.opened", _("study opened")
    STUDY_CLOSED = "study.closed", _("study closed (its report link inside)")
    JUDGE_RUN_FINISHED = "judge_run.finished", _("judge run finished")
    JUDGE_RUN_FAILED = "judge_run.failed", _("judge run stopped or failed")
    GENERATION_RUN_FINISHED = "generation_run.finished", _("generation run finished")
    GENERATION_RUN_FAILED = "generation_run.failed", _("generation run stopped or failed")
