"""Rubric synthesis (the paper's §3.3): an LLM drafts each draft case's criteria from its
dialogue (the rewrite where there is one), the absolute standard of every ability and the
reference models' answers, through the LLM job runner (cache, limits, budget, resume) with its
own template (``rubric_zh_v1``).

The reply is read by :func:`benchmark.llm.rubric_reply.rubric_reply_read` (binary wording, a
known ability, points in range, one catastrophic criterion, …); an unusable one is asked
again with the reasons (at most twice), then the draft is listed under the run's ``failures``.
A usable one becomes the draft's criteria at version 1, all of them or none, each keeping its
provenance (run, template version, model, raw reply). A draft that has criteria already (by
an earlier run or by hand) is not asked again.
"""

from collections.abc import Callable
from pathlib import Path

from django.db import transaction

from benchmark.llm.engine import Call, WorkItem
from benchmark.llm.progress import Progress
from benchmark.llm.prompts import (
    DEFAULT_RUBRIC_TEMPLATE,
    PromptTemplate,
    dialogue_render,
    template_load,
)
from benchmark.llm.rubric_reply import (
    POINTS_MAX,
    POINTS_MIN,
    ProposedCriterion,
    rubric_reask_message,
    rubric_reply_read,
)
from benchmark.models import (
    AbsoluteStandard,
    ConstructionProject,
    DraftCase,
    DraftCriterion,
    DraftStatus,
    ModelUnderTest,
    SynthesisRun,
)
from benchmark.rubric_rules import MAX_CRITERIA, MAX_TEXT, MIN_CRITERIA
from benchmark.selectors.construction import standards_current
from benchmark.services.criteria import CriterionError, draft_criterion_add
from benchmark.services.draft_jobs import FailureListingStore, project_run_continue
from benchmark.services.generation import model_job_execute
from benchmark.services.llm_jobs import EngineOptions, RunOutcome
from benchmark.taxonomy import BY_CODE, SCORED_CODES

TEMPLATE_VARIABLES = frozenset(
    {"dialogue", "standards", "references", "min_criteria", "max_criteria", "points_min",
     "points_max", "max_text"}
)  # fmt: skip


def synthesis_run_start(
    *, project: ConstructionProject, model: ModelUnderTest, limit: int | None = None
) -> SynthesisRun:
    """Continue the project's unfinished synthesis run by ``model``, or start one; ``limit``
    (the first N drafts in the funnel) is kept on the run, for a worker too."""
    with transaction.atomic():
        run = project_run_continue(run_model=SynthesisRun, project=project, model=model)
        if run.limit != limit:
            run.limit = limit
            run.save(update_fields=["limit"])
    return run


def standards_render(standards: dict[str, AbsoluteStandard]) -> str:
    """One line per scored ability: its code, Chinese name, version and text (or none yet)."""
    lines = []
    for code in SCORED_CODES:
        standard, zh = standards.get(code), BY_CODE[code].zh
        if standard is None:
            lines.append(f"- {code}（{zh}）：尚未撰写")
        else:
            text = " ".join(standard.text.split())
            lines.append(f"- {code}（{zh}，第 {standard.version} 版）：{text}")
    return "\n".join(lines)


def references_render(texts: list[str]) -> str:
    """The reference answers, numbered (the models are not named: a synthesiser should weigh
    what was said, not who said it)."""
    if not texts:
        return "（暂无参考回答）"
    return "\n\n".join(f"回答 {n}：\n{text.strip()}" for n, text in enumerate(texts, start=1))


def synthesis_prompt(*, draft: DraftCase, standards: str, template: PromptTemplate) -> str:
    """The synthesis prompt of one draft (its reference answers in the models' name order)."""
    answers = [r.text for r in sorted(draft.responses.all(), key=lambda r: r.model.name)]
    return template.render(
        dialogue=dialogue_render(draft.rewrite or draft.dialogue),
        standards=standards,
        references=references_render(answers),
        min_criteria=MIN_CRITERIA,
        max_criteria=MAX_CRITERIA,
        points_min=POINTS_MIN,
        points_max=POINTS_MAX,
        max_text=MAX_TEXT,
    )


def draft_criteria_synthesised_store(
    *, draft_id: int, criteria: list[ProposedCriterion], provenance: dict
) -> bool:
    """Make ``criteria`` the draft's rubric, all or none; False (nothing written) when the
    draft has criteria already. ``CriterionError`` when the draft left the funnel."""
    with transaction.atomic():
        draft = DraftCase.objects.select_for_update().get(pk=draft_id)
        if draft.criteria.exists():
            return False
        for criterion in criteria:
            draft_criterion_add(
                draft=draft,
                ability=criterion.ability,
                points=criterion.points,
                text=criterion.text,
                origin=DraftCriterion.Origin.SYNTHESISED,
                provenance=provenance,
            )
    return True


class _SynthesisStore(FailureListingStore):
    async def accept(
        self, unit: WorkItem, result: list[ProposedCriterion], raw: str, call: Call
    ) -> None:
        provenance = {
            "synthesis_run": self.run,
            "template_version": self.template_version,
            "model_name": self.endpoint.model,
            "raw_reply": raw,
        }

        def store() -> None:
            try:
                draft_criteria_synthesised_store(
                    draft_id=unit.ident, criteria=result, provenance=provenance
                )
            except CriterionError as exc:  # the draft was removed meanwhile
                self.failure_note(unit, str(exc))

        await self.call_sync(store)


def _reask(unit: WorkItem, messages: list[dict], text: str | None, problem: str) -> list[dict]:
    return [
        *messages,
        {"role": "assistant", "content": text or ""},
        {"role": "user", "content": rubric_reask_message(problem)},
    ]


def _interpret(unit: WorkItem, text: str | None, refusal: str | None) -> list[ProposedCriterion]:
    return rubric_reply_read(text, refusal)


def synthesis_run_execute(
    *,
    run: SynthesisRun,
    options: EngineOptions,
    on_progress: Callable[[Progress], None] | None = None,
) -> RunOutcome:
    """Ask the run's model for the criteria of every draft in the funnel (the first
    ``run.limit`` of them) that has none yet."""
    template = template_load(Path(DEFAULT_RUBRIC_TEMPLATE), allowed=TEMPLATE_VARIABLES)
    drafts = list(
        run.project.drafts.filter(status=DraftStatus.ACTIVE)
        .order_by("position")
        .prefetch_related("responses__model")[: run.limit]
    )
    with_criteria = set(
        DraftCriterion.objects.filter(draft__in=drafts).values_list("draft_id", flat=True)
    )
    standards = standards_render(standards_current())
    units = [
        WorkItem(
            ident=draft.pk,
            messages=[
                {
                    "role": "user",
                    "content": synthesis_prompt(
                        draft=draft, standards=standards, template=template
                    ),
                }
            ],
        )
        for draft in drafts
        if draft.pk not in with_criteria
    ]
    return model_job_execute(
        run=run,
        model=run.model,
        options=options,
        template_version=template.version,
        units=units,
        total=len(drafts),
        store_factory=_SynthesisStore,
        interpret=_interpret,
        reask=_reask,
        on_progress=on_progress,
    )
