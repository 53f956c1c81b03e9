"""The relative standard: reference models' answers to every draft of a project, through the
LLM job runner with the generation prompt (``generate_zh_v1``), so the criteria written later
can land where the models diverge.

A model answers the rewritten dialogue where there is one, else the seed's (recorded as
``DraftResponse.from_rewrite``). An answer is stored the moment it arrives, with an audit row;
a re-run asks only for the drafts the model has not answered; a draft whose request fails or
whose answer stays empty is listed under the run's ``failures`` and counted in its errors.
"""

from collections.abc import Callable
from functools import partial
from pathlib import Path

from django.db import transaction

from benchmark.audit_actions import BenchmarkAction
from benchmark.llm.engine import Call, WorkItem
from benchmark.llm.progress import Progress
from benchmark.llm.prompts import DEFAULT_GENERATE_TEMPLATE, dialogue_render, template_load
from benchmark.models import (
    ConstructionProject,
    DraftCase,
    DraftResponse,
    ModelUnderTest,
    ReferenceRun,
)
from benchmark.services.audit import audit_record
from benchmark.services.draft_jobs import FailureListingStore, project_run_continue
from benchmark.services.generation import answer_interpret, answer_reask, model_job_execute
from benchmark.services.llm_jobs import EngineOptions, RunOutcome


def reference_run_start(*, project: ConstructionProject, model: ModelUnderTest) -> ReferenceRun:
    """Continue the project's unfinished reference run by ``model``, or start one."""
    return project_run_continue(run_model=ReferenceRun, project=project, model=model)


def draft_response_store(*, draft_id: int, model_id: int, text: str, from_rewrite: bool) -> None:
    """Store one reference answer (one already there is kept), with an audit row."""
    with transaction.atomic():
        response, created = DraftResponse.objects.get_or_create(
            draft_id=draft_id,
            model_id=model_id,
            defaults={"text": text, "from_rewrite": from_rewrite},
        )
        if created:
            audit_record(
                actor=None,
                action=BenchmarkAction.DRAFT_REFERENCE_RESPONSE,
                obj=response,
                data={"draft": draft_id, "model": model_id, "from_rewrite": from_rewrite},
            )


class _ReferenceStore(FailureListingStore):
    def __init__(self, *, from_rewrite: dict[int, bool], **kwargs) -> None:
        super().__init__(**kwargs)
        self.from_rewrite = from_rewrite  # draft id -> the model was shown the rewrite

    async def accept(self, unit: WorkItem, result: str, raw: str, call: Call) -> None:
        model_id, rewritten = self.run.model_id, self.from_rewrite.get(unit.ident, False)
        await self.call_sync(
            lambda: draft_response_store(
                draft_id=unit.ident, model_id=model_id, text=result, from_rewrite=rewritten
            )
        )


def reference_run_execute(
    *,
    run: ReferenceRun,
    options: EngineOptions,
    on_progress: Callable[[Progress], None] | None = None,
) -> RunOutcome:
    """Ask the run's model to answer every draft of its project it has not answered yet."""
    template = template_load(Path(DEFAULT_GENERATE_TEMPLATE), allowed=frozenset({"dialogue"}))
    drafts = list(run.project.drafts.order_by("position"))
    answered = set(
        DraftResponse.objects.filter(draft__project=run.project, model=run.model).values_list(
            "draft_id", flat=True
        )
    )
    todo: list[DraftCase] = [draft for draft in drafts if draft.pk not in answered]
    units = [
        WorkItem(
            ident=draft.pk,
            messages=[
                {
                    "role": "user",
                    "content": template.render(
                        dialogue=dialogue_render(draft.rewrite or draft.dialogue)
                    ),
                }
            ],
        )
        for draft in todo
    ]
    rewritten = {draft.pk: draft.rewrite is not None for draft in todo}
    return model_job_execute(
        run=run,
        model=run.model,
        options=options,
        template_version=template.version,
        units=units,
        total=len(drafts),
        store_factory=partial(_ReferenceStore, from_rewrite=rewritten),
        interpret=answer_interpret,
        reask=answer_reask,
        on_progress=on_progress,
    )
