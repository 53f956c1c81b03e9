from django.conf import settings
from django.db import models

from benchmark.taxonomy import ABILITIES

ABILITY_CHOICES = [(a.code, f"{a.en} · {a.zh}") for a in ABILITIES]


class Difficulty(models.TextChoices):
    NORMAL = "normal", "normal"
    HARD = "hard", "hard"


class Dataset(models.Model):
    name = models.CharField(max_length=200)
    version = models.PositiveIntegerField()
    content_hash = models.CharField(max_length=64, help_text="sha256 of the canonical content")
    source = models.CharField(max_length=500, blank=True)
    licence_note = models.CharField(max_length=500, blank=True)
    is_demo = models.BooleanField(default=False)
    case_count = models.PositiveIntegerField(default=0)
    criterion_count = models.PositiveIntegerField(default=0)
    warnings = models.JSONField(default=list, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["name", "version"], name="dataset_name_version"),
            models.UniqueConstraint(fields=["name", "content_hash"], name="dataset_name_hash"),
        ]
        ordering = ["name", "-version"]

    def __str__(self) -> str:
        label = f"{self.name} v{self.version}"
        return f"{label} (demo)" if self.is_demo else label


class Case(models.Model):
    dataset = models.ForeignKey(Dataset, on_delete=models.CASCADE, related_name="cases")
    question_id = models.CharField(max_length=100)
    position = models.PositiveIntegerField()
    dialogue = models.JSONField()
    difficulty = models.CharField(max_length=10, choices=Difficulty.choices)
    primary_scene = models.CharField(max_length=200, blank=True)
    secondary_scene = models.CharField(max_length=200, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["dataset", "question_id"], name="case_dataset_qid"),
        ]
        ordering = ["dataset", "position"]

    def __str__(self) -> str:
        return self.question_id


class RubricItem(models.Model):
    case = models.ForeignKey(Case, on_delete=models.CASCADE, related_name="rubric")
    position = models.PositiveIntegerField()
    ability = models.CharField(max_length=40, choices=ABILITY_CHOICES)
    points = models.IntegerField(null=True, blank=True, help_text="null only for catastrophic")
    text = models.TextField()
    # The current version; an edit of text or points makes a RubricItemVersion and bumps it.
    version = models.PositiveIntegerField(default=1)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["case", "position"], name="rubric_case_position"),
        ]
        ordering = ["case", "position"]

    def __str__(self) -> str:
        return f"{self.case_id}#{self.position} {self.ability} {self.points}"


class RubricItemVersion(models.Model):
    """One state of a criterion; labels and verdicts record the version number they saw."""

    item = models.ForeignKey(RubricItem, on_delete=models.CASCADE, related_name="versions")
    number = models.PositiveIntegerField()
    text = models.TextField()
    points = models.IntegerField(null=True, blank=True)
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL
    )
    reason = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["item", "number"]
        constraints = [
            models.UniqueConstraint(fields=["item", "number"], name="rubric_version_once"),
        ]

    def __str__(self) -> str:
        return f"{self.item_id} v{self.number}"


class ModelUnderTest(models.Model):
    name = models.CharField(max_length=200, unique=True)
    description = models.TextField(blank=True)
    base_url = models.CharField(max_length=500, blank=True)
    endpoint_model = models.CharField(max_length=200, blank=True)
    parameters = models.JSONField(default=dict, blank=True)
    is_demo = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]
        verbose_name = "model under test"

    def __str__(self) -> str:
        return self.name


class Response(models.Model):
    model = models.ForeignKey(ModelUnderTest, on_delete=models.CASCADE, related_name="responses")
    case = models.ForeignKey(Case, on_delete=models.CASCADE, related_name="responses")
    text = models.TextField()
    source = models.CharField(max_length=20, default="import")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["model", "case"], name="response_model_case"),
        ]

    def __str__(self) -> str:
        return f"{self.model} / {self.case}"


class Judge(models.Model):
    name = models.CharField(max_length=200, unique=True)
    model = models.CharField(max_length=200, blank=True, help_text="endpoint model id")
    prompt_template_version = models.CharField(max_length=100, blank=True)
    base_url = models.CharField(max_length=500, blank=True)
    parameters = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class JudgeRun(models.Model):
    class Status(models.TextChoices):
        PENDING = "pending"
        RUNNING = "running"
        FINISHED = "finished"
        STOPPED = "stopped"
        FAILED = "failed"

    judge = models.ForeignKey(Judge, on_delete=models.PROTECT, related_name="runs")
    model = models.ForeignKey(ModelUnderTest, on_delete=models.CASCADE, related_name="judge_runs")
    dataset = models.ForeignKey(Dataset, on_delete=models.CASCADE, related_name="judge_runs")
    status = models.CharField(max_length=20, choices=Status.choices, default=Status.PENDING)
    source = models.CharField(max_length=20, default="import")
    content_hash = models.CharField(max_length=64, blank=True)
    stats = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"run {self.pk}: {self.judge} on {self.model} ({self.dataset})"


class Verdict(models.Model):
    class State(models.TextChoices):
        MET = "met"
        NOT_MET = "not_met"
        ERROR = "error"

    run = models.ForeignKey(JudgeRun, on_delete=models.CASCADE, related_name="verdicts")
    response = models.ForeignKey(Response, on_delete=models.CASCADE, related_name="verdicts")
    rubric_item = models.ForeignKey(RubricItem, on_delete=models.CASCADE, related_name="verdicts")
    state = models.CharField(max_length=10, choices=State.choices)
    # The version of the criterion the judge was shown.
    rubric_version = models.PositiveIntegerField(default=1)
    reasoning = models.TextField(blank=True)
    raw_reply = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["run", "rubric_item"], name="verdict_run_item"),
        ]

    def __str__(self) -> str:
        return f"{self.rubric_item}: {self.state}"


class AuditEvent(models.Model):
    """An append-only record of a change; written in the transaction of the change."""

    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL
    )
    action = models.CharField(max_length=100)
    object_type = models.CharField(max_length=100)
    object_id = models.CharField(max_length=100)
    data = models.JSONField(default=dict, blank=True)
    at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-at", "-id"]
        indexes = [models.Index(fields=["object_type", "object_id"])]

    def __str__(self) -> str:
        return f"{self.at:%Y-%m-%d %H:%M} {self.action} {self.object_type}:{self.object_id}"


class LLMCacheEntry(models.Model):
    """A chat reply kept by the hash of its request, so no request is ever paid for twice."""

    key = models.CharField(max_length=64, unique=True, help_text="sha256 of the request")
    endpoint_model = models.CharField(max_length=200)
    template_version = models.CharField(max_length=100)
    reply = models.TextField(help_text="only replies that were used are kept")
    tokens_in = models.PositiveIntegerField(default=0)
    tokens_out = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = "LLM cache entry"
        verbose_name_plural = "LLM cache entries"

    def __str__(self) -> str:
        return f"{self.endpoint_model} {self.template_version} {self.key[:12]}"


class GenerationRun(models.Model):
    """One pass generating a model's answers; resumable like a judge run."""

    model = models.ForeignKey(
        ModelUnderTest, on_delete=models.CASCADE, related_name="generation_runs"
    )
    dataset = models.ForeignKey(Dataset, on_delete=models.CASCADE, related_name="generation_runs")
    mode = models.CharField(max_length=10, default="all")
    status = models.CharField(
        max_length=20, choices=JudgeRun.Status.choices, default=JudgeRun.Status.PENDING
    )
    stats = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"generation {self.pk}: {self.model} on {self.dataset} ({self.mode})"
