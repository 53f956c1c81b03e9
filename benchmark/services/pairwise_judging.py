"""Have an LLM judge choose between the two responses of each pair of a pairwise set.

One more kind of LLM job (:mod:`benchmark.services.llm_jobs`): the same engine, cache, budget,
rate limits, retries and refusal handling as a rubric run. A unit is one pair in one order:
every pair is asked twice, with response a shown first (``ab``) and then b (``ba``). Each
reply is stored the moment it parses, as shown and mapped back to the stored pair, in one small
transaction; the unique (run, pair, order) constraint makes a replay harmless. A reply that
never parses, or a request that fails for good, is stored as a verdict in state ``error`` with
the reason and the raw reply. How the two orders combine is
:func:`benchmark.llm.pairwise_reply.pair_outcome`.
"""

from collections.abc import Callable
from pathlib import Path

from django.db import transaction

from benchmark.llm.client import Endpoint
from benchmark.llm.credentials import base_url_resolve
from benchmark.llm.engine import Call, EngineConfig, WorkItem
from benchmark.llm.pairwise_reply import (
    PairwiseReply,
    canonical_choice,
    pairwise_reply_parse,
    reask_message,
    shown_pair,
)
from benchmark.llm.progress import Progress
from benchmark.llm.prompts import (
    DEFAULT_PAIRWISE_TEMPLATE,
    PAIRWISE_VARIABLES,
    PromptTemplate,
    dialogue_render,
    template_load,
)
from benchmark.models import Judge, PairwiseRun, PairwiseSet, PairwiseVerdict
from benchmark.selectors import pairwise as selectors
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


def pairwise_template_load(path: Path | None = None) -> PromptTemplate:
    """The pairwise prompt: the built-in one, or a file with ``$dialogue``, ``$response_a`` and
    ``$response_b``."""
    return template_load(path or DEFAULT_PAIRWISE_TEMPLATE, allowed=PAIRWISE_VARIABLES)


def pairwise_run_start(
    *,
    judge: Judge,
    pair_set: PairwiseSet,
    options: RunOptions = DEFAULT_RUN_OPTIONS,
    template_path: Path | None = None,
    force: bool = False,
) -> tuple[PairwiseRun, bool]:
    """The run to work on and whether anything is left to do: the newest run of this judge
    over this set with these ``options`` (finished: nothing to do; else to be continued), or a
    new one; with ``force`` always a new one (``judge_run_start``'s rules)."""
    same = {"judge_id": judge.pk, "pair_set_id": pair_set.pk, **options.fields()}
    with transaction.atomic():
        if not force:
            newest = selectors.pairwise_run_newest(**same)
            if newest is not None:
                return newest, newest.status != PairwiseRun.Status.FINISHED
        run = PairwiseRun.objects.create(
            **same, status=PairwiseRun.Status.PENDING, template=str(template_path or "")
        )
        return run, True


def pairwise_run_execute(
    *,
    run_id: int,
    options: EngineOptions,
    on_progress: Callable[[Progress], None] | None = None,
) -> RunOutcome:
    """Ask the judge about every (pair, order) the run has no verdict for; return the run's
    final status and accounting."""
    run = selectors.pairwise_run_get(run_id=run_id)
    template = pairwise_template_load(Path(run.template) if run.template else None)
    if run.template_version and template.version != run.template_version:
        raise LLMJobConfigError(
            f"template {template.version!r} is not run {run.pk}'s {run.template_version!r}"
        )
    judge = run.judge
    base_url = base_url_resolve(explicit=options.base_url, stored=judge.base_url)
    if not base_url:
        raise LLMJobConfigError(
            f"judge {judge.name!r} has no base URL; pass --base-url or set OPENAI_BASE_URL"
        )
    endpoint = Endpoint(
        base_url=base_url,
        model=judge.model,
        api_key=options.api_key,
        parameters=request_parameters(stored=judge.parameters, run=run),
        timeout=options.timeout,
    )
    config = EngineConfig(
        template_version=template.version,
        concurrency=options.concurrency,
        max_reasks=options.max_reasks,
        max_cost=options.max_cost,
        price=engine_price(judge.model, judge.parameters, options),
        force=options.force,
        hedge_quantile=options.hedge_quantile,
    )
    return job_execute(
        run=run,
        endpoint=endpoint,
        config=config,
        options=options,
        units=_units(run=run, template=template),
        counts=selectors.pairwise_run_counts(run=run),
        store_factory=_PairwiseStore,
        interpret=_interpret,
        reask=_reask,
        on_progress=on_progress,
    )


def pairwise_verdict_store(
    *,
    run_id: int,
    pair_id: int,
    order: str,
    reply: PairwiseReply | None,
    reason: str = "",
    raw: str,
    call: Call,
) -> None:
    """Store one (pair, order)'s verdict — ``reply`` None: an error with ``reason`` — unless it
    is stored already."""
    if reply is None:
        shown, choice, reasoning = "", PairwiseVerdict.Choice.ERROR, reason
    else:
        shown, reasoning = reply.shown, reply.reasoning
        choice = canonical_choice(shown=reply.shown, order=order)
    with transaction.atomic():
        PairwiseVerdict.objects.bulk_create(
            [
                PairwiseVerdict(
                    run_id=run_id,
                    pair_id=pair_id,
                    order=order,
                    shown_choice=shown,
                    choice=choice,
                    reasoning=reasoning,
                    raw_reply=raw,
                    tokens_in=call.tokens_in,
                    tokens_out=call.tokens_out,
                    cached=call.cached,
                )
            ],
            ignore_conflicts=True,
        )


class _PairwiseStore(RunStore):
    async def accept(self, unit: WorkItem, result: PairwiseReply, raw: str, call: Call) -> None:
        pair_id, order = unit.ident
        await self.call_sync(
            lambda: pairwise_verdict_store(
                run_id=self.run.pk, pair_id=pair_id, order=order, reply=result, raw=raw, call=call
            )
        )

    async def fail(self, unit: WorkItem, reason: str, raw: str, call: Call) -> None:
        pair_id, order = unit.ident
        await self.call_sync(
            lambda: pairwise_verdict_store(
                run_id=self.run.pk,
                pair_id=pair_id,
                order=order,
                reply=None,
                reason=reason,
                raw=raw,
                call=call,
            )
        )


def _units(*, run: PairwiseRun, template: PromptTemplate) -> list[WorkItem]:
    units = []
    for todo in selectors.pairwise_run_todo(run=run):
        first, second = shown_pair(
            order=todo.order, response_a=todo.response_a, response_b=todo.response_b
        )
        prompt = template.render(
            dialogue=dialogue_render(todo.dialogue), response_a=first, response_b=second
        )
        units.append(
            WorkItem(
                ident=(todo.pair_id, todo.order), messages=[{"role": "user", "content": prompt}]
            )
        )
    return units


def _interpret(unit: WorkItem, text: str | None, refusal: str | None) -> PairwiseReply:
    return pairwise_reply_parse(text, refusal)


def _reask(unit: WorkItem, messages: list[dict], text: str | None, problem: str) -> list[dict]:
    return [
        *messages,
        {"role": "assistant", "content": text or "(no content)"},
        {"role": "user", "content": reask_message(problem=problem)},
    ]
