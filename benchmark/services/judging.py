"""Judge a model's responses with an LLM judge: resumable, cached, never silently wrong.

``judge_run_start`` picks or creates the run (continuing an unfinished one), and
``judge_run_execute`` does the work through :mod:`benchmark.llm.engine`. Each response's
verdicts are written in one small transaction the moment its reply is parsed; the unique
(run, rubric item) constraint makes a replay harmless. A reply that never parses, or a request
that fails for good, is stored as verdicts in state ``error`` with the reason and raw reply.
"""

from collections.abc import Callable
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

from django.db import transaction

from benchmark.llm.accounting import Tally
from benchmark.llm.client import Endpoint
from benchmark.llm.credentials import api_key_resolve, base_url_resolve
from benchmark.llm.engine import Call, EngineConfig, WorkItem
from benchmark.llm.parser import VERDICT_SCHEMA, JudgeReply, ReplyError, judge_reply_parse
from benchmark.llm.progress import Progress
from benchmark.llm.prompts import (
    DEFAULT_JUDGE_TEMPLATE,
    PromptTemplate,
    dialogue_render,
    reask_message,
    rubric_render,
    template_load,
)
from benchmark.models import Dataset, Judge, JudgeCall, JudgeRun, ModelUnderTest, Verdict
from benchmark.selectors import runs as run_selectors
from benchmark.selectors.rubric import rubric_item_versions
from benchmark.services.dispatch import run_queue
from benchmark.services.llm_jobs import (
    DEFAULT_RUN_OPTIONS,
    EngineOptions,
    LLMJobConfigError,
    RunOptions,
    RunOutcome,
    RunStore,
    engine_price,
    job_execute,
    request_parameters,
)
from config.locks import row_lock

GRANULARITIES = tuple(JudgeRun.Granularity.values)
RESPONSE_FORMAT = {
    "type": "json_schema",
    "json_schema": {"name": "heartbench_verdicts", "strict": True, "schema": VERDICT_SCHEMA},
}


def judge_resolve(
    *,
    name: str | None,
    endpoint_model: str | None,
    base_url: str | None,
    template: PromptTemplate | None,
) -> Judge:
    """The judge called ``name`` (by default the endpoint model id), created if new.

    A judge is identified by its endpoint model and prompt template version: asking an
    existing judge for another model or template is refused rather than silently mixing
    verdicts of two judges under one name. The base URL may change (another gateway).
    ``template`` None (a pairwise run, whose template is recorded on the run) checks the
    model only; a judge created so takes the rubric template it is first used with.
    """
    name = name or endpoint_model
    if not name:
        raise LLMJobConfigError("give --judge NAME or --judge-model MODEL")
    with transaction.atomic():
        judge, created = Judge.objects.select_for_update().get_or_create(
            name=name,
            defaults={
                "model": endpoint_model or name,
                "prompt_template_version": template.version if template else "",
                "base_url": base_url or "",
            },
        )
        if created:
            return judge
        if endpoint_model and judge.model != endpoint_model:
            raise LLMJobConfigError(
                f"judge {name!r} uses model {judge.model!r}, not {endpoint_model!r}; "
                "pick another --judge name"
            )
        if template is not None and not judge.prompt_template_version:
            judge.prompt_template_version = template.version
            judge.save(update_fields=["prompt_template_version"])
        if template is not None and judge.prompt_template_version != template.version:
            raise LLMJobConfigError(
                f"judge {name!r} uses prompt template {judge.prompt_template_version!r}, "
                f"not {template.version!r}; pick another --judge name"
            )
        if base_url and judge.base_url != base_url:
            judge.base_url = base_url
            judge.save(update_fields=["base_url"])
        return judge


def judge_run_start(
    *,
    judge: Judge,
    model: ModelUnderTest,
    dataset: Dataset,
    granularity: str = "response",
    options: RunOptions = DEFAULT_RUN_OPTIONS,
    template_path: Path | None = None,
    force: bool = False,
    repeat_of: JudgeRun | None = None,
    repeat_index: int = 0,
) -> tuple[JudgeRun, bool]:
    """The run to work on and whether there is anything left to do.

    "The same run" is the same judge, model, dataset, granularity and ``options`` (and, for a
    repeat, the same run 0 and repeat index: see ``judge_repeats_start``). Without
    ``force`` the newest such run is returned: as is when it finished (nothing to do), to be
    continued when it did not; without one a new run is created. With ``force`` a new run is
    always created. ``options.sample_ids`` must have passed ``run_options_check``.
    """
    if granularity not in GRANULARITIES:
        raise LLMJobConfigError(f"granularity must be one of {GRANULARITIES}")
    same = {
        "judge_id": judge.pk,
        "model_id": model.pk,
        "dataset_id": dataset.pk,
        "granularity": granularity,
        **options.fields(),
        "repeat_of_id": repeat_of.pk if repeat_of else None,
        "repeat_index": repeat_index,
    }
    with transaction.atomic():
        if not force:
            newest = run_selectors.judge_run_newest(**same)
            if newest is not None:
                return newest, newest.status != JudgeRun.Status.FINISHED
        run = JudgeRun.objects.create(
            **same,
            status=JudgeRun.Status.PENDING,
            source="engine",
            template=str(template_path or ""),
        )
        return run, True


def judge_repeats_start(
    *,
    judge: Judge,
    model: ModelUnderTest,
    dataset: Dataset,
    repeats: int,
    granularity: str = "response",
    options: RunOptions = DEFAULT_RUN_OPTIONS,
    template_path: Path | None = None,
    force: bool = False,
) -> list[tuple[JudgeRun, bool]]:
    """``repeats`` independent runs of ``judge`` over the same responses, each with what is
    left to do (``judge_run_start``'s rules, per repeat).

    Run 0 is the ordinary run (an existing one is reused); runs 1..N-1 link to it
    (``repeat_of``, ``repeat_index``). Each repeat asks the judge anew: its replies are cached
    under its own index (``cache_key.request_key``), and with a seed, repeat i sends seed + i.
    Temperature and seed are recorded on every run.
    """
    if repeats < 1:
        raise LLMJobConfigError("--repeats must be at least 1")
    runs = []
    for index in range(repeats):
        seeded = options if options.seed is None else replace(options, seed=options.seed + index)
        runs.append(
            judge_run_start(
                judge=judge,
                model=model,
                dataset=dataset,
                granularity=granularity,
                options=seeded,
                template_path=template_path,
                force=force,
                repeat_of=runs[0][0] if runs else None,
                repeat_index=index,
            )
        )
    return runs


def judge_run_execute(
    *,
    run_id: int,
    options: EngineOptions,
    on_progress: Callable[[Progress], None] | None = None,
    response_ids: list[int] | None = None,
) -> RunOutcome:
    """Judge whatever the run has not judged yet; return its final status and accounting.

    With ``response_ids`` only those responses are judged, as one chunk of a run that several
    workers share (:mod:`benchmark.services.judge_chunks`): the chunk's accounting is added to
    the run's under a row lock and the run's status is left to the caller to close.
    """
    run = run_selectors.judge_run_get(run_id=run_id)
    template = template_load(Path(run.template or DEFAULT_JUDGE_TEMPLATE))
    judge = run.judge
    if template.version != judge.prompt_template_version:
        raise LLMJobConfigError(
            f"template {template.version!r} is not judge {judge.name!r}'s "
            f"{judge.prompt_template_version!r}"
        )
    base_url = base_url_resolve(explicit=options.base_url, stored=judge.base_url)
    if not base_url:
        raise LLMJobConfigError(
            f"judge {judge.name!r} has no base URL; pass --base-url or set OPENAI_BASE_URL"
        )
    units = _judge_units(run=run, template=template, response_ids=response_ids)
    counts = run_selectors.judge_run_counts(run=run)
    price = engine_price(judge.model, judge.parameters, options)
    endpoint = Endpoint(
        base_url=base_url,
        model=judge.model,
        api_key=options.api_key,
        parameters=request_parameters(stored=judge.parameters, run=run),
        timeout=options.timeout,
    )
    config = EngineConfig(
        template_version=template.version,
        response_format=RESPONSE_FORMAT if template.structured else None,
        concurrency=options.concurrency,
        max_reasks=options.max_reasks,
        max_cost=options.max_cost,
        price=price,
        force=options.force,
        repeat=run.repeat_index,
        hedge_quantile=options.hedge_quantile,
    )
    return job_execute(
        run=run,
        endpoint=endpoint,
        config=config,
        options=options,
        units=units,
        counts=counts,
        store_factory=_JudgeStore if response_ids is None else _JudgeChunkStore,
        interpret=_interpret_verdicts,
        reask=_reask,
        on_progress=on_progress,
        chunk=response_ids is not None,
    )


def judge_run_queue(*, run_id: int) -> None:
    """Have a Celery worker judge (or continue) the run once this transaction commits.

    With the broker down the run is kept pending and marked waiting, and is queued when the
    broker is back (:func:`benchmark.services.judge_chunks.judge_runs_dispatch_waiting`).
    """
    run_queue(model_cls=JudgeRun, run_id=run_id)


def judge_queue_all(*, judge: Judge) -> list[int]:
    """Queue a run of ``judge`` for every model and dataset with responses it has not judged."""
    template = template_load(DEFAULT_JUDGE_TEMPLATE)
    if template.version != judge.prompt_template_version:
        raise LLMJobConfigError(
            f"judge {judge.name!r} uses template {judge.prompt_template_version!r}; only the "
            f"built-in {template.version!r} can run from the admin"
        )
    queued = []
    with transaction.atomic():
        for model_id, dataset_id in run_selectors.answered_pairs():
            run, todo = judge_run_start(
                judge=judge,
                model=ModelUnderTest.objects.get(pk=model_id),
                dataset=Dataset.objects.get(pk=dataset_id),
            )
            if todo:
                judge_run_queue(run_id=run.pk)
                queued.append(run.pk)
    return queued


def engine_options_for_worker(*, judge: Judge) -> EngineOptions:
    """Options for a background run: the worker's environment key, the judge's own limits."""
    limits = judge.parameters.get("limits") or {}
    return EngineOptions(
        api_key=api_key_resolve(),
        concurrency=int(limits.get("concurrency", 16)),
        rpm=limits.get("rpm"),
        tpm=limits.get("tpm"),
    )


class _JudgeStore(RunStore):
    async def accept(self, unit: WorkItem, result: JudgeReply, raw: str, call: Call) -> None:
        response_id, item_ids, versions = unit.ident
        await self.call_sync(
            lambda: verdicts_store(
                run_id=self.run.pk,
                response_id=response_id,
                states=[Verdict.State.MET if met else Verdict.State.NOT_MET for met in result.met],
                item_ids=item_ids,
                versions=versions,
                reasons=list(result.reasons),
                raw=raw,
                call=call,
            )
        )

    async def fail(self, unit: WorkItem, reason: str, raw: str, call: Call) -> None:
        response_id, item_ids, versions = unit.ident
        await self.call_sync(
            lambda: verdicts_store(
                run_id=self.run.pk,
                response_id=response_id,
                states=[Verdict.State.ERROR] * len(item_ids),
                item_ids=item_ids,
                versions=versions,
                reasons=[reason] * len(item_ids),
                raw=raw,
                call=call,
            )
        )


class _JudgeChunkStore(_JudgeStore):
    """Several chunks of one run write its accounting at once: each adds what it spent since
    its last checkpoint, under a row lock, instead of overwriting the others' totals."""

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.flushed = Tally().as_dict()

    async def checkpoint(self, progress: Progress, tally: Tally) -> None:
        current = tally.as_dict()
        delta = {name: value - self.flushed[name] for name, value in current.items()}
        self.flushed = current
        await self.call_sync(lambda: run_tally_add(run_id=self.run.pk, delta=delta))


def run_tally_add(*, run_id: int, delta: dict) -> None:
    """Add a chunk's spending to its run's accounting and refresh the run's progress counts."""
    with transaction.atomic():
        run = row_lock(JudgeRun, run_id)
        for name, value in delta.items():
            setattr(run, name, round(getattr(run, name) + value, 6))
        counts = run_selectors.judge_run_counts(run=run)
        for name, value in counts.items():
            setattr(run, name, value)
        run.save(update_fields=[*delta, *counts])


def verdicts_store(
    *,
    run_id: int,
    response_id: int,
    item_ids: list[int],
    states: list[str],
    reasons: list[str],
    raw: str,
    versions: list[int] | None = None,
    call: Call | None = None,
) -> int:
    """Write one response's verdicts at once, with the ``call`` that asked for them (a
    ``JudgeCall``); already stored ones are left as they are.

    ``versions`` are the rubric versions the judge's prompt showed (read when the prompt was
    built: a criterion edited while the request was out keeps the verdict on the old text);
    without them the criteria's current versions are recorded.
    """
    if versions is None:
        current = rubric_item_versions(item_ids=item_ids)
        versions = [current[item_id] for item_id in item_ids]
    with transaction.atomic():
        created = Verdict.objects.bulk_create(
            [
                Verdict(
                    run_id=run_id,
                    response_id=response_id,
                    rubric_item_id=item_id,
                    state=state,
                    rubric_version=version,
                    reasoning=reason,
                    raw_reply=raw,
                )
                for item_id, state, reason, version in zip(
                    item_ids, states, reasons, versions, strict=True
                )
            ],
            ignore_conflicts=True,
        )
        if call is not None:
            JudgeCall.objects.bulk_create(
                [
                    JudgeCall(
                        run_id=run_id,
                        response_id=response_id,
                        rubric_item_id=item_ids[0],
                        messages=call.messages,
                        started_at=datetime.fromtimestamp(call.started_at, tz=UTC),
                        seconds=call.seconds,
                        asks=call.asks,
                        tokens_in=call.tokens_in,
                        tokens_out=call.tokens_out,
                        cached=call.cached,
                    )
                ],
                ignore_conflicts=True,
            )
        return len(created)


def _judge_units(
    *,
    run: JudgeRun,
    template: PromptTemplate,
    response_ids: list[int] | None = None,
) -> list[WorkItem]:
    units = []
    for response in run_selectors.judge_run_todo(run=run, response_ids=response_ids):
        items = response.criteria
        groups = (
            [[item] for item in items] if run.granularity == JudgeRun.Granularity.ITEM else [items]
        )
        dialogue = dialogue_render(response.dialogue)
        for group in groups:
            prompt = template.render(
                dialogue=dialogue,
                response=response.text,
                rubric=rubric_render([(i.ability, i.points, i.text) for i in group]),
                rubric_count=len(group),
            )
            units.append(
                WorkItem(
                    # The versions go with the prompt: the verdict is on the text it showed.
                    ident=(response.id, [i.id for i in group], [i.version for i in group]),
                    messages=[{"role": "user", "content": prompt}],
                    expected=len(group),
                )
            )
    return units


def _interpret_verdicts(unit: WorkItem, text: str | None, refusal: str | None) -> JudgeReply:
    if text is None:
        raise ReplyError(f"the judge refused: {refusal or 'no content'}")
    return judge_reply_parse(text, expected=unit.expected)


def _reask(unit: WorkItem, messages: list[dict], text: str | None, problem: str) -> list[dict]:
    return [
        *messages,
        {"role": "assistant", "content": text or "(no content)"},
        {"role": "user", "content": reask_message(problem=problem, expected=unit.expected)},
    ]
