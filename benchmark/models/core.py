from django.conf import settings
from django.db import models
from django.utils.functional import lazy
from django.utils.translation import get_language
from django.utils.translation import gettext_lazy as _

from benchmark.stored_rows import StoredValue
from benchmark.taxonomy import ABILITIES, ability_name


def _ability_label(code: str) -> str:
    # The taxonomy holds both names, so the catalogue needs no copy of them. With
    # translation off (makemigrations, migrate) there is no language: the English name.
    return ability_name(code, language=get_language())


ABILITY_CHOICES = [(a.code, lazy(_ability_label, str)(a.code)) for a in ABILITIES]


class Difficulty(models.TextChoices):
    NORMAL = "normal", _("normal")
    HARD = "hard", _("hard")


class Dataset(models.Model):
    name = models.CharField(_("name"), max_length=200)
    version = models.PositiveIntegerField(_("version"))
    content_hash = models.CharField(
        _("content hash"), max_length=64, help_text=_("SHA-256 of the canonical content")
    )
    source = models.CharField(_("source"), max_length=500, blank=True)
    licence_note = models.CharField(_("licence note"), max_length=500, blank=True)
    is_demo = models.BooleanField(_("demo data"), default=False)
    case_count = models.PositiveIntegerField(_("cases"), default=0)
    criterion_count = models.PositiveIntegerField(_("criteria"), default=0)
    warnings = models.JSONField(_("import warnings"), default=list, blank=True)
    created_at = models.DateTimeField(_("imported at"), auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["name", "version"], name="dataset_name_version"),
            models.UniqueConstraint(fields=["name", "content_hash"], name="dataset_name_hash"),
        ]
        ordering = ["name", "-version"]
        verbose_name = _("dataset")
        verbose_name_plural = _("datasets")

    def __str__(self) -> str:
        label = f"{self.name} v{self.version}"
        return f"{label} (demo)" if self.is_demo else label


class Case(models.Model):
    dataset = models.ForeignKey(
        Dataset, on_delete=models.CASCADE, related_name="cases", verbose_name=_("dataset")
    )
    question_id = models.CharField(_("question id"), max_length=100)
    position = models.PositiveIntegerField(_("position"))
    dialogue = models.JSONField(_("dialogue"))
    difficulty = models.CharField(_("difficulty"), max_length=10, choices=Difficulty.choices)
    primary_scene = models.CharField(_("primary scene"), max_length=200, blank=True)
    secondary_scene = models.CharField(_("secondary scene"), max_length=200, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["dataset", "question_id"], name="case_dataset_qid"),
        ]
        ordering = ["dataset", "position"]
        verbose_name = _("case")
        verbose_name_plural = _("cases")

    def __str__(self) -> str:
        return self.question_id


class Criterion(models.Model):
    """A binary criterion of a rubric as it stands now, with its current version number: a
    published case's (``RubricItem``) or a draft's (``DraftCriterion``). Every change of its
    text or points is a new row of its version table (a ``CriterionVersion``) and bumps
    ``version``; labels and verdicts record the version they saw."""

    position = models.PositiveIntegerField(_("position"))
    ability = models.CharField(_("ability"), max_length=40, choices=ABILITY_CHOICES)
    points = models.IntegerField(
        _("points"),
        null=True,
        blank=True,
        help_text=_("Empty only for the catastrophic criterion."),
    )
    text = models.TextField(_("text"))
    version = models.PositiveIntegerField(_("version"), default=1)

    class Meta:
        abstract = True


class TextVersion(models.Model):
    """One state of a versioned text (a criterion, an absolute standard): its number, the
    text, who wrote it, why and when."""

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
        abstract = True


class CriterionVersion(TextVersion):
    """One state of a criterion, with its points."""

    points = models.IntegerField(_("points"), null=True, blank=True)

    class Meta:
        abstract = True


class RubricItem(Criterion):
    case = models.ForeignKey(
        Case, on_delete=models.CASCADE, related_name="rubric", verbose_name=_("case")
    )

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["case", "position"], name="rubric_case_position"),
        ]
        ordering = ["case", "position"]
        verbose_name = _("criterion")
        verbose_name_plural = _("criteria")

    def __str__(self) -> str:
        return f"{self.case_id}#{self.position} {self.ability} {self.points}"


class RubricItemVersion(CriterionVersion):
    """One state of a published criterion (its ability never changes)."""

    item = models.ForeignKey(
        RubricItem,
        on_delete=models.CASCADE,
        related_name="versions",
        verbose_name=_("criterion"),
    )
    # The study item whose judge–gold disagreement prompted this edit: {"study": name,
    # "unit": unit token} (the criterion is this version's item). Plain values, not a key:
    # benchmark knows no study, and the link must outlive a deleted study.
    disagreement = models.JSONField(_("prompted by a disagreement"), null=True, blank=True)

    class Meta:
        ordering = ["item", "number"]
        verbose_name = _("criterion version")
        verbose_name_plural = _("criterion versions")
        constraints = [
            models.UniqueConstraint(fields=["item", "number"], name="rubric_version_once"),
        ]

    def __str__(self) -> str:
        return f"{self.item_id} v{self.number}"


class ModelUnderTest(models.Model):
    name = models.CharField(_("name"), max_length=200, unique=True)
    description = models.TextField(_("description"), blank=True)
    base_url = models.CharField(_("base URL"), max_length=500, blank=True)
    endpoint_model = models.CharField(_("endpoint model id"), max_length=200, blank=True)
    parameters = models.JSONField(_("parameters"), default=dict, blank=True)
    is_demo = models.BooleanField(_("demo data"), default=False)
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)

    class Meta:
        ordering = ["name"]
        verbose_name = _("model under test")
        verbose_name_plural = _("models under test")

    def __str__(self) -> str:
        return self.name


class Response(models.Model):
    model = models.ForeignKey(
        ModelUnderTest,
        on_delete=models.CASCADE,
        related_name="responses",
        verbose_name=_("model"),
    )
    case = models.ForeignKey(
        Case, on_delete=models.CASCADE, related_name="responses", verbose_name=_("case")
    )
    text = models.TextField(_("text"))
    source = models.CharField(_("source"), max_length=20, default="import")
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["model", "case"], name="response_model_case"),
        ]
        verbose_name = _("response")
        verbose_name_plural = _("responses")

    def __str__(self) -> str:
        return f"{self.model} / {self.case}"


class Judge(models.Model):
    name = models.CharField(_("name"), max_length=200, unique=True)
    model = models.CharField(
        _("model"), max_length=200, blank=True, help_text=_("The endpoint's model id.")
    )
    prompt_template_version = models.CharField(
        _("prompt template version"), max_length=100, blank=True
    )
    base_url = models.CharField(_("base URL"), max_length=500, blank=True)
    parameters = models.JSONField(_("parameters"), default=dict, blank=True)
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)

    class Meta:
        ordering = ["name"]
        verbose_name = _("judge")
        verbose_name_plural = _("judges")

    def __str__(self) -> str:
        return self.name


class LLMRun(models.Model):
    """One run of an LLM job (judging, generation): its status, its engine's accounting and
    its progress, added up across the sessions that resume it (``benchmark.services.llm_jobs``).
    """

    class Status(models.TextChoices):
        PENDING = "pending", _("pending")
        RUNNING = "running", _("running")
        FINISHED = "finished", _("finished")
        STOPPED = "stopped", _("stopped")
        FAILED = "failed", _("failed")

    status = models.CharField(
        _("status"), max_length=20, choices=Status.choices, default=Status.PENDING
    )
    template_version = models.CharField(_("prompt template version"), max_length=100, blank=True)
    stop_reason = models.CharField(
        _("stop reason"), max_length=50, blank=True, help_text=_("Why it stopped early.")
    )
    error = models.CharField(
        _("error"), max_length=500, blank=True, help_text=_("Why it could not start.")
    )
    waiting_for_broker = models.BooleanField(
        _("waiting for the broker"),
        default=False,
        help_text=_("Queued while the broker was unreachable; queued again when it is back."),
    )
    # Progress: criteria (judging) or cases (generation).
    total = models.PositiveIntegerField(_("total"), default=0)
    done = models.PositiveIntegerField(_("done"), default=0)
    errors = models.PositiveIntegerField(_("errors"), default=0)
    # Accounting: the fields of benchmark.llm.accounting.Tally.
    calls = models.PositiveIntegerField(_("requests"), default=0)
    retries = models.PositiveIntegerField(_("retries"), default=0)
    reasks = models.PositiveIntegerField(_("re-asks"), default=0)
    cached = models.PositiveIntegerField(_("served from cache"), default=0)
    tokens_in = models.PositiveBigIntegerField(_("input tokens"), default=0)
    tokens_out = models.PositiveBigIntegerField(_("output tokens"), default=0)
    cost = models.FloatField(_("cost (USD)"), default=0.0)
    wall_seconds = models.FloatField(_("wall time (s)"), default=0.0)
    parse_failures = models.PositiveIntegerField(_("parse failures"), default=0)
    request_failures = models.PositiveIntegerField(_("request failures"), default=0)
    # What the run asks for (benchmark.services.llm_jobs.RunOptions): sent with every request
    # or choosing its cases; a run with other values is another run.
    OPTION_FIELDS = ("temperature", "max_tokens", "seed", "sample_ids", "limit")
    temperature = models.FloatField(_("temperature"), null=True, blank=True)
    max_tokens = models.PositiveIntegerField(_("max tokens"), null=True, blank=True)
    seed = models.BigIntegerField(_("seed"), null=True, blank=True)
    sample_ids = models.TextField(
        _("question ids"), blank=True, help_text=_("Comma-separated; empty: every case.")
    )
    limit = models.PositiveIntegerField(
        _("case limit"), null=True, blank=True, help_text=_("The first cases only.")
    )
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)
    finished_at = models.DateTimeField(_("finished at"), null=True, blank=True)

    class Meta:
        abstract = True
        ordering = ["-created_at", "-id"]


class JudgeRun(LLMRun):
    class Granularity(models.TextChoices):
        RESPONSE = "response", _("per response")
        ITEM = "item", _("per criterion")

    judge = models.ForeignKey(
        Judge, on_delete=models.PROTECT, related_name="runs", verbose_name=_("judge")
    )
    model = models.ForeignKey(
        ModelUnderTest,
        on_delete=models.CASCADE,
        related_name="judge_runs",
        verbose_name=_("model"),
    )
    dataset = models.ForeignKey(
        Dataset, on_delete=models.CASCADE, related_name="judge_runs", verbose_name=_("dataset")
    )
    source = models.CharField(_("source"), max_length=20, default="import")
    content_hash = models.CharField(_("content hash"), max_length=64, blank=True)
    granularity = models.CharField(
        _("granularity"), max_length=10, choices=Granularity.choices, default=Granularity.RESPONSE
    )
    template = models.CharField(
        _("prompt template file"), max_length=500, blank=True, help_text=_("Empty: the built-in.")
    )
    retry_of = models.ForeignKey(
        "self",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="retry_runs",
        verbose_name=_("retry of"),
    )
    # Repeats (``judge --repeats N``): runs 1..N-1 of the same judge over the same responses,
    # linked to run 0 (the ordinary run, ``repeat_of`` empty); each asks the judge anew.
    repeat_of = models.ForeignKey(
        "self",
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="repeats",
        verbose_name=_("repeat of"),
    )
    repeat_index = models.PositiveSmallIntegerField(
        _("repeat"), default=0, help_text=_("0 for the ordinary run; 1, 2, … for its repeats.")
    )
    # What an import of upstream verdicts found (rows, unanswered, refitted, ...).
    import_summary = models.JSONField(_("import summary"), default=dict, blank=True)
    # The chunk tasks a worker is judging now: task id → {"worker", "since", "responses"}. A
    # worker that died leaves its entry until the chunk comes back to another worker.
    chunks_held = models.JSONField(_("chunks being judged"), default=dict, blank=True)

    class Meta(LLMRun.Meta):
        verbose_name = _("judge run")
        verbose_name_plural = _("judge runs")

    def __str__(self) -> str:
        return f"run {self.pk}: {self.judge} on {self.model} ({self.dataset})"


class Verdict(models.Model):
    class State(models.TextChoices):
        MET = "met", _("met")
        NOT_MET = "not_met", _("not met")
        ERROR = "error", _("error")

    run = models.ForeignKey(
        JudgeRun, on_delete=models.CASCADE, related_name="verdicts", verbose_name=_("judge run")
    )
    response = models.ForeignKey(
        Response, on_delete=models.CASCADE, related_name="verdicts", verbose_name=_("response")
    )
    rubric_item = models.ForeignKey(
        RubricItem, on_delete=models.CASCADE, related_name="verdicts", verbose_name=_("criterion")
    )
    state = models.CharField(_("verdict"), max_length=10, choices=State.choices)
    # The version of the criterion the judge was shown.
    rubric_version = models.PositiveIntegerField(_("criterion version"), default=1)
    reasoning = models.TextField(_("reasoning"), blank=True)
    raw_reply = models.TextField(_("raw reply"), blank=True)
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["run", "rubric_item"], name="verdict_run_item"),
        ]
        # The dashboard's per-run progress and error counts read the index alone.
        indexes = [models.Index(fields=["run", "state"], name="verdict_run_state")]
        verbose_name = _("verdict")
        verbose_name_plural = _("verdicts")

    def __str__(self) -> str:
        return f"{self.rubric_item}: {self.state}"


class JudgeCall(models.Model):
    """What asking the judge about one response (or, per criterion, one criterion) took: the
    conversation last sent, re-asks included, when and how long, and the replies' tokens. The
    reply itself is its verdicts' ``raw_reply``; written with them (``verdicts_store``)."""

    run = models.ForeignKey(
        JudgeRun, on_delete=models.CASCADE, related_name="judge_calls", verbose_name=_("judge run")
    )
    response = models.ForeignKey(
        Response, on_delete=models.CASCADE, related_name="judge_calls", verbose_name=_("response")
    )
    # The first criterion the request judged: the call's key in the run.
    rubric_item = models.ForeignKey(
        RubricItem,
        on_delete=models.CASCADE,
        related_name="judge_calls",
        verbose_name=_("criterion"),
    )
    messages = models.JSONField(_("messages"), default=list)
    started_at = models.DateTimeField(_("started at"))
    seconds = models.FloatField(_("seconds"))
    asks = models.PositiveSmallIntegerField(_("asks"))
    tokens_in = models.PositiveIntegerField(_("input tokens"))
    tokens_out = models.PositiveIntegerField(_("output tokens"))
    cached = models.BooleanField(_("from the cache"))

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["run", "rubric_item"], name="judge_call_run_item"),
        ]
        verbose_name = _("judge call")
        verbose_name_plural = _("judge calls")

    def __str__(self) -> str:
        return f"run {self.run_id}: response {self.response_id} ({self.seconds:.2f} s)"


class AuditEvent(models.Model):
    """An append-only record of a change; written in the transaction of the change."""

    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        verbose_name=_("actor"),
    )
    action = models.CharField(_("action"), max_length=100)
    object_type = models.CharField(_("object type"), max_length=100)
    object_id = models.CharField(_("object id"), max_length=100)
    data = models.JSONField(_("data"), default=dict, blank=True)
    at = models.DateTimeField(_("time"), auto_now_add=True)

    class Meta:
        ordering = ["-at", "-id"]
        verbose_name = _("audit event")
        verbose_name_plural = _("audit events")
        indexes = [models.Index(fields=["object_type", "object_id"])]

    def __str__(self) -> str:
        return f"{self.at:%Y-%m-%d %H:%M} {self.action} {self.object_type}:{self.object_id}"


class LLMCacheEntry(models.Model):
    """A chat reply kept by the hash of its request, so no request is ever paid for twice."""

    key = models.CharField(
        _("key"), max_length=64, unique=True, help_text=_("SHA-256 of the request")
    )
    endpoint_model = models.CharField(_("endpoint model id"), max_length=200)
    template_version = models.CharField(_("prompt template version"), max_length=100)
    reply = models.TextField(_("reply"), help_text=_("Only replies that were used are kept."))
    tokens_in = models.PositiveIntegerField(_("input tokens"), default=0)
    tokens_out = models.PositiveIntegerField(_("output tokens"), default=0)
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)

    class Meta:
        verbose_name = _("LLM cache entry")
        verbose_name_plural = _("LLM cache entries")

    def __str__(self) -> str:
        return f"{self.endpoint_model} {self.template_version} {self.key[:12]}"


class GenerationRun(LLMRun):
    """One pass generating a model's answers; resumable like a judge run."""

    model = models.ForeignKey(
        ModelUnderTest,
        on_delete=models.CASCADE,
        related_name="generation_runs",
        verbose_name=_("model"),
    )
    dataset = models.ForeignKey(
        Dataset,
        on_delete=models.CASCADE,
        related_name="generation_runs",
        verbose_name=_("dataset"),
    )
    mode = models.CharField(_("cases"), max_length=10, default="all")
    # Engine options of a run queued from the admin, read by the worker (tasks take ids);
    # empty ones fall back to the model's "limits". The API key is never stored.
    concurrency = models.PositiveIntegerField(_("concurrent requests"), null=True, blank=True)
    rpm = models.FloatField(_("requests per minute"), null=True, blank=True)
    tpm = models.FloatField(_("tokens per minute"), null=True, blank=True)
    max_cost = models.FloatField(_("budget (USD)"), null=True, blank=True)
    # The cases of the latest session that got no answer, with the reason (the first 50).
    failures = models.JSONField(_("failures"), default=list, blank=True)

    class Meta(LLMRun.Meta):
        verbose_name = _("generation run")
        verbose_name_plural = _("generation runs")

    def __str__(self) -> str:
        return f"generation {self.pk}: {self.model} on {self.dataset} ({self.mode})"


class StoredBoard(StoredValue):
    """A leaderboard computed once and kept as data (``benchmark.services.stored_board``), so a
    restart or an emptied cache does not compute its joint bootstrap again. The key hashes the
    board's options (``kind``) with its inputs' fingerprint and a digest of the scoring code:
    a new verdict, a finished run, an edited criterion or a deploy changing the code gives a
    new key. One row per dataset and kind: storing a new one deletes the older."""

    dataset = models.ForeignKey(
        Dataset, on_delete=models.CASCADE, related_name="+", verbose_name=_("dataset")
    )

    class Meta(StoredValue.Meta):
        verbose_name = _("stored leaderboard")
        verbose_name_plural = _("stored leaderboards")
        indexes = [models.Index(fields=["dataset", "kind"])]

    def __str__(self) -> str:
        return f"{self.dataset} · {self.kind}"
