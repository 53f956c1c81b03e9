"""Rewriting a project's seed dialogues with an LLM (privacy, fluency), through the LLM job
runner: the reply cache, budget, rate limits, retries and resumption of every LLM job.

The rewrite is kept beside the seed's own dialogue (``DraftCase.rewrite``), never over it, so
a reviewer can compare the two. A reply is used only if it is a dialogue with the seed's turns:
as many, with the same roles in the same order; otherwise it is asked again (bounded), then
counted as the run's error and the draft keeps no rewrite.
"""

import json
import re
from collections.abc import Callable, Sequence
from pathlib import Path

from django.db import transaction
from django.db.models import QuerySet

from benchmark.audit_actions import BenchmarkAction
from benchmark.importing import ImportFailure
from benchmark.importing.dataset import dialogue_parse
from benchmark.llm.engine import Call, WorkItem
from benchmark.llm.parser import ReplyError
from benchmark.llm.progress import Progress
from benchmark.llm.prompts import DEFAULT_REWRITE_TEMPLATE, template_load
from benchmark.models import ConstructionProject, DraftCase, ModelUnderTest, RewriteRun
from benchmark.services.audit import audit_record
from benchmark.services.draft_jobs import project_run_continue
from benchmark.services.generation import model_job_execute
from benchmark.services.llm_jobs import EngineOptions, RunOutcome, RunStore

_FENCE = re.compile(r"^```(?:json)?\s*|\s*```$")


def rewrite_run_start(
    *, project: ConstructionProject, model: ModelUnderTest, question_ids: Sequence[str] = ()
) -> RewriteRun:
    """Continue the project's unfinished rewrite run by ``model``, or start one; with
    ``question_ids``, a run of those drafts only (``import-seeds --rewrite``: the imported)."""
    return project_run_continue(
        run_model=RewriteRun, project=project, model=model, sample_ids=",".join(question_ids)
    )


def _in_scope(*, project: ConstructionProject, sample_ids: str) -> QuerySet[DraftCase]:
    """The project's drafts a run is about: of ``sample_ids`` (comma-separated question ids)
    when it names any, else every one."""
    drafts = project.drafts.order_by("position")
    wanted = [q for q in sample_ids.split(",") if q]
    return drafts.filter(question_id__in=wanted) if wanted else drafts


def rewrite_todo(*, project: ConstructionProject, sample_ids: str = "") -> list[DraftCase]:
    """The drafts a rewrite run asks for: those in its scope with no rewrite yet."""
    return list(_in_scope(project=project, sample_ids=sample_ids).filter(rewrite__isnull=True))


def rewrite_interpret(roles: list[str]) -> Callable[[WorkItem, str | None, str | None], list]:
    """The reply check for one seed: a JSON ``{"dialogue": [...]}`` with the seed's roles."""

    def interpret(unit: WorkItem, text: str | None, refusal: str | None) -> list[dict[str, str]]:
        if text is None:
            raise ReplyError(f"the model refused: {refusal or 'no content'}")
        try:
            value = json.loads(_FENCE.sub("", text.strip()))
            dialogue = dialogue_parse(value.get("dialogue") if isinstance(value, dict) else None)
        except (ValueError, ImportFailure) as exc:
            raise ReplyError(f"not a dialogue as JSON: {exc}") from None
        got = [turn["role"] for turn in dialogue]
        if got != roles:
            raise ReplyError(f"the turns' roles are {''.join(got)}, not {''.join(roles)}")
        if not all(turn["content"].strip() for turn in dialogue):
            raise ReplyError("a turn is empty")
        return dialogue

    return interpret


def _reask(unit: WorkItem, messages: list[dict], text: str | None, problem: str) -> list[dict]:
    return [
        *messages,
        {"role": "assistant", "content": text or ""},
        {
            "role": "user",
            "content": f"你上面的输出无法使用：{problem}。请只输出要求的 JSON 对象，"
            "轮数和每一轮的 role 与原文相同。",
        },
    ]


def draft_rewrite_store(
    *, draft_id: int, model_name: str, dialogue: list[dict] | None = None, error: str = ""
) -> None:
    """Keep a draft's rewrite, or why it could not be had (the draft then keeps none), with
    an audit row."""
    with transaction.atomic():
        draft = DraftCase.objects.select_for_update().get(pk=draft_id)
        draft.rewrite, draft.rewrite_model, draft.rewrite_error = dialogue, model_name, error[:500]
        draft.save(update_fields=["rewrite", "rewrite_model", "rewrite_error"])
        audit_record(
            actor=None,
            action=BenchmarkAction.DRAFT_REWRITE,
            obj=draft,
            data={"model": model_name, "rewritten": dialogue is not None, "error": error[:500]},
        )


class _RewriteStore(RunStore):
    async def accept(self, unit: WorkItem, result: list[dict], raw: str, call: Call) -> None:
        name = self.endpoint.model
        await self.call_sync(
            lambda: draft_rewrite_store(draft_id=unit.ident, model_name=name, dialogue=result)
        )

    async def fail(self, unit: WorkItem, reason: str, raw: str, call: Call) -> None:
        name = self.endpoint.model
        await self.call_sync(
            lambda: draft_rewrite_store(draft_id=unit.ident, model_name=name, error=reason)
        )


def rewrite_run_execute(
    *,
    run: RewriteRun,
    options: EngineOptions,
    on_progress: Callable[[Progress], None] | None = None,
) -> RunOutcome:
    """Ask the model to rewrite the run's drafts that have no rewrite yet (``rewrite_todo``)."""
    template = template_load(Path(DEFAULT_REWRITE_TEMPLATE), allowed=frozenset({"dialogue"}))
    todo = rewrite_todo(project=run.project, sample_ids=run.sample_ids)
    roles = {draft.pk: [turn["role"] for turn in draft.dialogue] for draft in todo}
    checks = {pk: rewrite_interpret(expected) for pk, expected in roles.items()}
    units = [
        WorkItem(
            ident=draft.pk,
            messages=[
                {
                    "role": "user",
                    "content": template.render(
                        dialogue=json.dumps(draft.dialogue, ensure_ascii=False)
                    ),
                }
            ],
        )
        for draft in todo
    ]
    return model_job_execute(
        run=run,
        model=run.model,
        options=options,
        template_version=template.version,
        units=units,
        total=_in_scope(project=run.project, sample_ids=run.sample_ids).count(),
        store_factory=_RewriteStore,
        interpret=lambda unit, text, refusal: checks[unit.ident](unit, text, refusal),
        reask=_reask,
        on_progress=on_progress,
    )
