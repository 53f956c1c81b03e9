"""Generate a model's answers to a dataset's dialogues, with the judge engine's guarantees.

The dialogue is given to the model as history inside one instruction (as upstream does, in our
own wording, ``benchmark/llm/prompts/generate_zh_v1.txt``). Each answer is stored as a
``Response`` the moment it arrives; a re-run skips answered cases and replays cached replies.
A case whose request fails for good or whose reply stays empty/refused gets no response: it is
counted in the run's ``errors`` and listed under ``failures``, and the run can be re-tried.
"""

from collections.abc import Callable
from pathlib import Path

from django.db import transaction
from django.utils.translation import gettext

from benchmark.llm.accounting import Tally
from benchmark.llm.client import Endpoint
from benchmark.llm.credentials import api_key_resolve, base_url_resolve
from benchmark.llm.engine import Call, EngineConfig, Interpret, Reask, WorkItem
from benchmark.llm.parser import ReplyError
from benchmark.llm.progress import Progress
from benchmark.llm.prompts import DEFAULT_GENERATE_TEMPLATE, dialogue_render, template_load
from benchmark.models import Dataset, GenerationRun, LLMRun, ModelUnderTest, Response
from benchmark.selectors import runs as run_selectors
from benchmark.services.dispatch import run_queue, runs_dispatch_waiting
from benchmark.services.llm_jobs import (
    DEFAULT_RUN_OPTIONS,
    EngineOptions,
    LLMJobConfigError,
    NothingToRetry,
    RunOptions,
    RunOutcome,
    RunStore,
    engine_price,
    job_execute,
    llm_run_fail,
    request_parameters,
)
from config.locks import row_lock

MODES = ("all", "normal", "hard")
MAX_LISTED_FAILURES = 50
# Engine settings a run queued from the admin may carry in its fields (a worker reads
# them there: tasks take ids, not options). The key is never among them.
QUEUE_OPTIONS = ("concurrency", "rpm", "tpm", "max_cost")


def model_resolve(
    *, name: str, endpoint_model: str | None = None, base_url: str | None = None
) -> ModelUnderTest:
    """The model under test called ``name``, created if new; endpoint settings updated."""
    with transaction.atomic():
        model, _ = ModelUnderTest.objects.select_for_update().get_or_create(name=name)
        changed = []
        if endpoint_model and model.endpoint_model != endpoint_model:
            model.endpoint_model = endpoint_model
            changed.append("endpoint_model")
        if base_url and model.base_url != base_url:
            model.base_url = base_url
            changed.append("base_url")
        if changed:
            model.save(update_fields=changed)
        return model


def generation_run_start(
    *,
    model: ModelUnderTest,
    dataset: Dataset,
    mode: str = "all",
    options: RunOptions = DEFAULT_RUN_OPTIONS,
    retry_errors: bool = False,
) -> GenerationRun:
    """Continue the unfinished generation run for this model, dataset, mode and ``options``, or
    start one (``options.sample_ids`` must have passed ``run_options_check``).

    With ``retry_errors`` a new run always starts, asking again for the cases that got no
    answer; refused (``LLMJobConfigError``) unless the newest such run ended with errors.
    When the newest run finished and every case it asks for has an answer, it is returned
    as is (finished): there is nothing to do, and no empty run is made.
    """
    if mode not in MODES:
        raise LLMJobConfigError(f"mode must be one of {MODES}")
    same = {"model_id": model.pk, "dataset_id": dataset.pk, "mode": mode, **options.fields()}
    with transaction.atomic():
        newest = run_selectors.generation_run_newest(**same)
        if retry_errors:
            _generation_retry_check(run=newest)
        elif newest is not None and newest.status != GenerationRun.Status.FINISHED:
            return newest
        elif newest is not None and not run_selectors.generation_todo(run=newest):
            return newest
        return GenerationRun.objects.create(**same)


def _generation_retry_check(*, run: GenerationRun | None) -> None:
    """Refuse to ask again for the errors of ``run`` when there are none, or it is going."""
    if run is None:
        raise LLMJobConfigError("no generation run with these options to retry")
    if run.status in (GenerationRun.Status.PENDING, GenerationRun.Status.RUNNING):
        raise LLMJobConfigError(f"generation run {run.pk} is still going: wait until it ends")
    if not run.errors:
        raise NothingToRetry(f"generation run {run.pk} has no errors", run_id=run.pk)


def generation_run_execute(
    *,
    run_id: int,
    options: EngineOptions,
    on_progress: Callable[[Progress], None] | None = None,
) -> RunOutcome:
    """Ask the model for every case it has not answered yet."""
    run = run_selectors.generation_run_get(run_id=run_id)
    template = template_load(Path(DEFAULT_GENERATE_TEMPLATE), allowed=frozenset({"dialogue"}))
    cases = run_selectors.generation_todo(run=run)
    units = [
        WorkItem(
            ident=case.pk,
            messages=[
                {
                    "role": "user",
                    "content": template.render(dialogue=dialogue_render(case.dialogue)),
                }
            ],
        )
        for case in cases
    ]
    return model_job_execute(
        run=run,
        model=run.model,
        options=options,
        template_version=template.version,
        units=units,
        total=len(run_selectors.generation_run_cases(run=run)),
        store_factory=_GenerationStore,
        interpret=answer_interpret,
        reask=answer_reask,
        on_progress=on_progress,
    )


def model_job_execute(
    *,
    run: LLMRun,
    model: ModelUnderTest,
    options: EngineOptions,
    template_version: str,
    units: list[WorkItem],
    total: int,
    store_factory: Callable[..., RunStore],
    interpret: Interpret,
    reask: Reask,
    on_progress: Callable[[Progress], None] | None,
) -> RunOutcome:
    """Run ``units`` (what is left of ``total``) against the endpoint of the model under test
    ``model`` for ``run``: its answers, and the construction jobs that ask it (rewriting
    seeds, reference answers)."""
    base_url = base_url_resolve(explicit=options.base_url, stored=model.base_url)
    if not base_url:
        raise LLMJobConfigError(
            f"model {model.name!r} has no base URL; pass --base-url or set OPENAI_BASE_URL"
        )
    endpoint_model = model.endpoint_model or model.name
    return job_execute(
        run=run,
        endpoint=Endpoint(
            base_url=base_url,
            model=endpoint_model,
            api_key=options.api_key,
            parameters=request_parameters(stored=model.parameters, run=run),
            timeout=options.timeout,
        ),
        config=EngineConfig(
            template_version=template_version,
            concurrency=options.concurrency,
            max_reasks=options.max_reasks,
            max_cost=options.max_cost,
            price=engine_price(endpoint_model, model.parameters, options),
            force=options.force,
            hedge_quantile=options.hedge_quantile,
        ),
        options=options,
        units=units,
        counts={"total": total, "done": total - len(units), "errors": 0},
        store_factory=store_factory,
        interpret=interpret,
        reask=reask,
        on_progress=on_progress,
    )


def generation_queue(
    *,
    model: ModelUnderTest,
    dataset: Dataset,
    mode: str = "all",
    options: dict | None = None,
) -> GenerationRun:
    """Start (or continue) generating ``model``'s answers to ``dataset`` on the task queue.

    ``options`` (``QUEUE_OPTIONS``; missing ones fall back to the model's ``limits``) are kept
    on the run for the worker. Without a broker the run is generated in process when the
    caller's transaction commits.
    """
    chosen = generation_queue_check(model=model, options=options)
    with transaction.atomic():
        run = generation_run_start(model=model, dataset=dataset, mode=mode)
        run = row_lock(GenerationRun, run.pk)
        run.error = ""  # a fresh try
        for name, value in chosen.items():
            setattr(run, name, value)
        run.save(update_fields=["error", *chosen])
        generation_run_queue(run_id=run.pk)
    return run


def generation_queue_check(*, model: ModelUnderTest, options: dict | None = None) -> dict:
    """The options a run queued for ``model`` keeps; LLMJobConfigError when it could not start
    (refused here, at the admin's form, rather than later in a worker)."""
    if not model.base_url:
        raise LLMJobConfigError(
            gettext("model %(name)s has no base URL: set it on the model first")
            % {"name": model.name}
        )
    chosen = {k: v for k, v in (options or {}).items() if k in QUEUE_OPTIONS and v is not None}
    if chosen.get("max_cost") is not None:
        # A budget needs a price to count against.
        engine_price(
            model.endpoint_model or model.name, model.parameters, EngineOptions(max_cost=1)
        )
    return chosen


def generation_run_queue(*, run_id: int) -> None:
    """Have a worker generate (or continue) the run once this transaction commits; with the
    broker down it waits, like a judge run (:mod:`benchmark.services.dispatch`)."""
    run_queue(model_cls=GenerationRun, run_id=run_id)


def generation_runs_dispatch_waiting() -> list[int]:
    """Queue every generation run left waiting while the broker was down."""
    return runs_dispatch_waiting(model_cls=GenerationRun)


def generation_options_for_worker(*, run: GenerationRun) -> EngineOptions:
    """A background run's options: the worker's environment key, then the run's own options
    over the model's ``limits``."""
    return model_options_for_worker(model=run.model, queued=generation_run_queued_options(run=run))


def model_options_for_worker(*, model: ModelUnderTest, queued: dict | None = None) -> EngineOptions:
    """The options of a background run asking ``model`` (its answers, the jobs on drafts): the
    worker's environment key, then ``queued`` (the run's own options) over the model's
    ``limits``."""
    limits = {**(model.parameters.get("limits") or {}), **(queued or {})}
    return EngineOptions(
        api_key=api_key_resolve(),
        concurrency=int(limits.get("concurrency") or 16),
        rpm=limits.get("rpm"),
        tpm=limits.get("tpm"),
        max_cost=limits.get("max_cost"),
    )


def generation_run_queued_options(*, run: GenerationRun) -> dict:
    """The engine options the run was queued with (those left empty are not among them)."""
    return {name: getattr(run, name) for name in QUEUE_OPTIONS if getattr(run, name) is not None}


def generation_run_fail(*, run_id: int, reason: str) -> None:
    """Mark a run that cannot start as it is configured (retrying would not help)."""
    llm_run_fail(model_cls=GenerationRun, run_id=run_id, reason=reason)


def response_store(*, model_id: int, case_id: int, text: str) -> None:
    """Store one generated answer; an answer already there is kept."""
    with transaction.atomic():
        Response.objects.get_or_create(
            model_id=model_id, case_id=case_id, defaults={"text": text, "source": "generated"}
        )


class _GenerationStore(RunStore):
    """Answers become responses; the session's failures are listed on the run."""

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.failures: list[dict] = []

    async def accept(self, unit: WorkItem, result: str, raw: str, call: Call) -> None:
        model_id = self.run.model_id
        await self.call_sync(
            lambda: response_store(model_id=model_id, case_id=unit.ident, text=result)
        )

    async def fail(self, unit: WorkItem, reason: str, raw: str, call: Call) -> None:
        if len(self.failures) < MAX_LISTED_FAILURES:
            self.failures.append({"case_id": unit.ident, "reason": reason[:300]})

    async def checkpoint(self, progress: Progress, tally: Tally) -> None:
        await super().checkpoint(progress, tally)
        listed = list(self.failures)
        await self.call_sync(
            lambda: GenerationRun.objects.filter(pk=self.run.pk).update(failures=listed)
        )


def answer_interpret(unit: WorkItem, text: str | None, refusal: str | None) -> str:
    if text is None:
        raise ReplyError(f"the model refused: {refusal or 'no content'}")
    if not text.strip():
        raise ReplyError("empty answer")
    return text.strip()


def answer_reask(
    unit: WorkItem, messages: list[dict], text: str | None, problem: str
) -> list[dict]:
    # An empty or refused answer is asked again unchanged: a correction turn would change
    # what is being measured.
    return messages
