"""The LLM job runner: one run of an LLM job (judging, generation, …) against one endpoint.

A job kind supplies four things and gets resumption, the reply cache, the budget, rate
limiting, retries, checkpoints and the run's status for free:

1. a run model inheriting :class:`benchmark.models.LLMRun` (status, progress, accounting);
2. its :class:`benchmark.llm.engine.WorkItem` s, one per prompt still to send;
3. a :class:`RunStore` subclass whose ``accept`` and ``fail`` store one unit's result or failure
   (the cache and the checkpoints are the base class's), and an ``interpret`` (with its
   ``reask``) that turns a reply into a result or raises ``ReplyError``;
4. a Celery task that executes a run by id, registered for its run model in
   ``BenchmarkConfig.ready()`` so that :mod:`benchmark.services.dispatch` can queue it.

``job_execute`` then runs the engine over the units and closes the run.
"""

from collections.abc import Callable
from dataclasses import dataclass, field

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from benchmark.llm.accounting import TALLY_FIELDS, Price, Tally, price_for
from benchmark.llm.bridge import CallSync, run_bridged
from benchmark.llm.client import ChatClient, Completion, Endpoint, RetryPolicy
from benchmark.llm.engine import (
    REFUSED,
    CachedReply,
    Engine,
    EngineConfig,
    Interpret,
    Reask,
    WorkItem,
)
from benchmark.llm.progress import Progress
from benchmark.llm.ratelimit import limiter_build
from benchmark.models import LLMCacheEntry, LLMRun
from benchmark.selectors import runs as run_selectors
from benchmark.services.announce import run_ended
from config.locks import row_lock

# Keys of Judge/ModelUnderTest.parameters that configure the engine, not the endpoint request:
# "price": [USD per M input, per M output]; "limits": {"concurrency", "rpm", "tpm"} for runs
# started from the admin / Celery.
ENGINE_KEYS = frozenset({"price", "limits"})
INTERRUPTED = "interrupted"  # the stop reason of a run stopped by Ctrl-C


class LLMJobConfigError(ValueError):
    """The job as asked for conflicts with what is stored, or lacks what it needs."""


class NothingToRetry(LLMJobConfigError):
    """Errors asked for again where the run has none: refused as a job, done for a command."""

    def __init__(self, message: str, *, run_id: int):
        super().__init__(message)
        self.run_id = run_id


@dataclass
class EngineOptions:
    """How to talk to the endpoint (never stored; a queued generation run keeps its limits)."""

    api_key: str = field(default="", repr=False)
    base_url: str = ""
    concurrency: int = 16
    rpm: float | None = None
    tpm: float | None = None
    timeout: float = 120.0
    max_cost: float | None = None
    price_in: float | None = None
    price_out: float | None = None
    force: bool = False
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    max_reasks: int = 2
    hedge_quantile: float | None = None


@dataclass(frozen=True)
class RunOptions:
    """What a run asks for besides its job's own keys, recorded on the run (``LLMRun``).

    ``temperature``, ``max_tokens`` and ``seed`` go into every request, so into the reply cache's
    key; ``sample_ids`` (question ids) and ``limit`` (the first cases) choose the cases. A run
    with other options is another run: never resumed, never "already finished", for these.
    """

    temperature: float | None = None
    max_tokens: int | None = None
    seed: int | None = None
    sample_ids: tuple[str, ...] = ()
    limit: int | None = None

    def fields(self) -> dict:
        """As the run's fields: to create a run with these options, or to find one."""
        return {
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
            "seed": self.seed,
            "sample_ids": ",".join(sorted(set(self.sample_ids))),
            "limit": self.limit,
        }


DEFAULT_RUN_OPTIONS = RunOptions()
REQUEST_OPTIONS = ("temperature", "max_tokens", "seed")


def run_options_of(run: LLMRun) -> RunOptions:
    """The options ``run`` was started with."""
    return RunOptions(
        temperature=run.temperature,
        max_tokens=run.max_tokens,
        seed=run.seed,
        sample_ids=tuple(filter(None, run.sample_ids.split(","))),
        limit=run.limit,
    )


def run_options_check(*, dataset, options: RunOptions) -> None:
    """Refuse question ids that are not in ``dataset`` (naming them), before anything is written."""
    unknown = run_selectors.question_ids_unknown(dataset=dataset, ids=options.sample_ids)
    if unknown:
        raise LLMJobConfigError(
            f"unknown --sample-id for dataset {dataset.name} v{dataset.version}: "
            + ", ".join(unknown)
        )


def request_parameters(*, stored: dict, run: LLMRun) -> dict:
    """The body settings of the run's requests: the judge's or model's stored ``parameters``
    (less ``ENGINE_KEYS``), with the run's own temperature, max tokens and seed over them."""
    parameters = {k: v for k, v in stored.items() if k not in ENGINE_KEYS}
    for name in REQUEST_OPTIONS:
        if getattr(run, name) is not None:
            parameters[name] = getattr(run, name)
    return parameters


@dataclass(frozen=True)
class RunOutcome:
    run: LLMRun  # as stored when the session ended
    stop_reason: str = ""

    @property
    def status(self) -> str:
        return self.run.status


def engine_price(model: str, parameters: dict, options: EngineOptions) -> Price:
    """The endpoint model's price: the options', else the stored ``parameters["price"]``, else
    the table's; refused when a budget (``max_cost``) has no price to count against."""
    stored = parameters.get("price") or [None, None]
    price_in = options.price_in if options.price_in is not None else stored[0]
    price_out = options.price_out if options.price_out is not None else stored[1]
    price = price_for(model, price_in=price_in, price_out=price_out)
    if options.max_cost is not None and not price.known:
        raise LLMJobConfigError(
            f"no price known for model {model!r}: --max-cost needs --price-in and --price-out"
        )
    return price


def llm_cache_store(
    *, key: str, endpoint_model: str, template_version: str, reply: Completion
) -> None:
    """Keep a reply under its request hash (a later identical request is served from here).

    One upsert statement: a reply arriving for a key already kept replaces it."""
    LLMCacheEntry.objects.bulk_create(
        [
            LLMCacheEntry(
                key=key,
                endpoint_model=endpoint_model,
                template_version=template_version,
                reply=reply.text or "",
                tokens_in=reply.tokens_in,
                tokens_out=reply.tokens_out,
            )
        ],
        update_conflicts=True,
        unique_fields=["key"],
        update_fields=["endpoint_model", "template_version", "reply", "tokens_in", "tokens_out"],
    )


def _run_tally(run: LLMRun) -> Tally:
    """What the run has spent so far, to go on counting from."""
    return Tally(**{name: getattr(run, name) for name in TALLY_FIELDS})


def _run_mark(*, run: LLMRun, status: str, stop_reason: str = "", error: str = "") -> None:
    """Set the run's status and why it stopped; a finished run gets its finishing time."""
    run.status, run.stop_reason, run.error = status, stop_reason, error[:500]
    updated = ["status", "stop_reason", "error"]
    if status == LLMRun.Status.FINISHED:
        run.finished_at = timezone.now()
        updated.append("finished_at")
    with transaction.atomic():
        run.save(update_fields=updated)
        run_ended(run=run)


def llm_run_fail(*, model_cls: type[LLMRun], run_id: int, reason: str) -> None:
    """Mark a run that cannot start as it is configured (retrying would not help)."""
    with transaction.atomic():
        run = row_lock(model_cls, run_id)
        run.status, run.error = LLMRun.Status.FAILED, reason[:500]
        run.save(update_fields=["status", "error"])
        run_ended(run=run)


class RunStore:
    """Engine callbacks that hop to the database thread; subclasses store results."""

    def __init__(
        self,
        *,
        call_sync: CallSync,
        run: LLMRun,
        endpoint: Endpoint,
        template_version: str,
    ) -> None:
        self.call_sync = call_sync
        self.run = run
        self.endpoint = endpoint
        self.template_version = template_version

    async def cached(self, keys: list[str]) -> dict[str, CachedReply]:
        entries = await self.call_sync(lambda: run_selectors.llm_cache_lookup(keys=keys))
        return {
            key: CachedReply(entry.reply, None, entry.tokens_in, entry.tokens_out)
            for key, entry in entries.items()
        }

    async def remember(self, key: str, reply: Completion) -> None:
        await self.call_sync(
            lambda: llm_cache_store(
                key=key,
                endpoint_model=self.endpoint.model,
                template_version=self.template_version,
                reply=reply,
            )
        )

    async def checkpoint(self, progress: Progress, tally: Tally) -> None:
        written = {
            **tally.as_dict(),
            "total": progress.total,
            "done": progress.done,
            "errors": progress.errors,
        }
        run_model = type(self.run)
        await self.call_sync(lambda: run_model.objects.filter(pk=self.run.pk).update(**written))


def job_execute(
    *,
    run: LLMRun,
    endpoint: Endpoint,
    config: EngineConfig,
    options: EngineOptions,
    units: list[WorkItem],
    counts: dict[str, int],
    store_factory: type[RunStore],
    interpret: Interpret,
    reask: Reask,
    on_progress: Callable[[Progress], None] | None,
    chunk: bool = False,
) -> RunOutcome:
    """Mark ``run`` running, run the engine over ``units`` for it and close it.

    ``counts`` (``total``, ``done``, ``errors``) include what earlier sessions did. A ``chunk``
    counts its own spending from zero (the store adds it to the run's) and leaves the run's
    status alone unless it has to stop.
    """
    run.status, run.stop_reason, run.error = LLMRun.Status.RUNNING, "", ""
    run.template_version = config.template_version
    with transaction.atomic():
        run.save(update_fields=["status", "stop_reason", "error", "template_version"])
    tally = Tally() if chunk else _run_tally(run)
    limiter = limiter_build(
        redis_url=settings.REDIS_URL,
        scope=f"{endpoint.base_url}|{endpoint.model}",
        rpm=options.rpm,
        tpm=options.tpm,
    )

    async def job(call_sync: CallSync) -> str:
        client = ChatClient(
            endpoint,
            concurrency=options.concurrency,
            limiter=limiter,
            retry=options.retry,
            # A run that had replies before (an earlier session, another chunk) met this
            # endpoint working: a refused connection now is an outage, not a wrong address.
            answered_before=run.tokens_out > 0,
        )
        store = store_factory(
            call_sync=call_sync,
            run=run,
            endpoint=endpoint,
            template_version=config.template_version,
        )
        engine = Engine(
            client=client,
            store=store,
            config=config,
            interpret=interpret,
            reask=reask,
            tally=tally,
            on_progress=on_progress,
        )
        try:
            await engine.run(
                units, total=counts["total"], done=counts["done"], errors=counts["errors"]
            )
        finally:
            await client.close()
            if hasattr(limiter, "close"):
                await limiter.close()
        if on_progress:
            on_progress(engine.progress())
        return engine

    try:
        engine = run_bridged(job, batch=transaction.atomic)
    except KeyboardInterrupt:
        _run_mark(run=run, status=LLMRun.Status.STOPPED, stop_reason=INTERRUPTED)
        raise
    except BaseException:
        _run_mark(run=run, status=LLMRun.Status.STOPPED)
        raise
    run.refresh_from_db()
    stop_reason = engine.stop_reason
    if chunk and not stop_reason:
        return RunOutcome(run=run)
    if stop_reason == REFUSED:
        _run_mark(run=run, status=LLMRun.Status.FAILED, stop_reason=REFUSED, error=engine.refusal)
        return RunOutcome(run=run, stop_reason=REFUSED)
    status = LLMRun.Status.STOPPED if stop_reason else LLMRun.Status.FINISHED
    _run_mark(run=run, status=status, stop_reason=stop_reason)
    return RunOutcome(run=run, stop_reason=stop_reason)
