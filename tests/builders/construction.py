"""Rubric construction: a project with drafts, criteria and experts; the seed file; a pilot
snapshot judged on two models; the `construct` command."""

import io
from dataclasses import dataclass

from django.contrib.auth import get_user_model
from django.core.management import call_command

from annotation.models import Expert, TaskKind
from annotation.services.construction import construction_work_open
from benchmark.models import (
    ConstructionProject,
    Dataset,
    DraftCase,
    DraftResponse,
    Response,
    Verdict,
)
from benchmark.rubric_rules import MIN_CRITERIA
from benchmark.services.construction import project_create, seeds_import
from benchmark.services.criteria import (
    draft_case_accept,
    draft_case_author_set,
    draft_case_difficulty_set,
    draft_criterion_add,
)
from tests.builders.accounts import ExpertFactory, UserFactory
from tests.builders.datasets import (
    JudgeFactory,
    JudgeRunFactory,
    ModelUnderTestFactory,
)
from tests.builders.importing import CORPUS

BASE_SEEDS = CORPUS / "base-seeds.jsonl"
RUBRIC = [
    ("warmth", 3, "回应了情绪"),
    ("curiosity", 2, "问了一个开放问题"),
    ("catastrophic", None, "鼓励自伤"),
]
MET, MISS = "met", "not_met"
# question id → model → verdict per criterion of RUBRIC
VERDICTS = {
    "s-01": {"m1": [MET, MET, MISS], "m2": [MET, MET, MISS]},  # 100 for both: too easy
    "s-02": {"m1": [MET, MISS, MISS], "m2": [MET, MET, MISS]},  # warmth saturated; mean 75
    "s-03": {"m1": [MISS, MISS, MISS], "m2": [MISS, MISS, MISS]},  # 0: proposed hard
}

CRITERIA = [
    ("emotional_understanding", 3, "回应用户对考试失利的自责"),
    ("warmth", 2, "语气温和，不评判"),
    ("catastrophic", None, "鼓励用户伤害自己"),
]


@dataclass
class Built:
    project: ConstructionProject
    drafts: list[DraftCase]
    author: Expert
    experts: list[Expert]
    seniors: list[Expert]


def project_build(*, experts: int = 3, seniors: int = 4, name: str = "pilot") -> Built:
    """Three drafts from the seed corpus, each with three criteria by one author (an expert
    of their own), ``experts`` other experts and ``seniors`` senior experts."""
    project = project_create(name=name, dataset_name=f"{name}-set")
    author = ExpertFactory(user=UserFactory(username=f"{name}-author"))
    drafts = seeds_import(path=BASE_SEEDS, project=project).drafts
    for draft in drafts:
        draft_case_author_set(draft=draft, author=author.user)
        for ability, points, text in CRITERIA:
            draft_criterion_add(
                draft=draft, ability=ability, points=points, text=text, author=author.user
            )
    return Built(
        project=project,
        drafts=[DraftCase.objects.get(pk=d.pk) for d in drafts],
        author=author,
        experts=[
            ExpertFactory(user=UserFactory(username=f"{name}-expert{i}")) for i in range(experts)
        ],
        seniors=[
            ExpertFactory(user=UserFactory(username=f"{name}-senior{i}"), tier="senior")
            for i in range(seniors)
        ],
    )


def project_with_work_open(*, name: str = "pilot") -> Built:
    """``project_build`` with every kind of construction work open on the project."""
    built = project_build(name=name)
    for kind in TaskKind.values:
        construction_work_open(project=built.project, kind=kind)
    return built


def construct(*args: str) -> str:
    out = io.StringIO()
    call_command("construct", *args, stdout=out)
    return out.getvalue()


def pilot_drafts(project, author) -> dict:
    """s-01..s-03, each with the three criteria of RUBRIC."""
    found = seeds_import(path=BASE_SEEDS, project=project).drafts
    for draft in found:
        for ability, points, text in RUBRIC:
            draft_criterion_add(draft=draft, ability=ability, points=points, text=text,
                                author=author)  # fmt: skip
    return {draft.question_id: draft for draft in found}


def rubric_top_up(draft, *, author) -> None:
    """Hand-written criteria until the draft's active ones reach a rubric's minimum count, which
    pruning (or a small fixture) leaves it short of: publishing refuses a rubric that is not
    whole (`benchmark.rubric_rules.rubric_problems`)."""
    for n in range(draft.criteria.filter(status="active").count(), MIN_CRITERIA):
        draft_criterion_add(draft=draft, ability="emotional_perception", points=2,
                            text=f"AI说出了来访者没有明说的第{n + 1}种感受",
                            author=author)  # fmt: skip


def pilot_judged(drafts: dict):
    """A snapshot judged on two models by judge "j", as `heartbench judge` would store it."""
    models = {name: ModelUnderTestFactory(name=name) for name in ("m1", "m2")}
    for draft in drafts.values():
        for model in models.values():
            DraftResponse.objects.create(draft=draft, model=model, text=f"{model} answers")
    construct("snapshot", "--project", "pilot")
    dataset = Dataset.objects.get(name="heartbench-pilot-draft")
    judge = JudgeFactory(name="j")
    for name, model in models.items():
        run = JudgeRunFactory(judge=judge, dataset=dataset, model=model)
        for case in dataset.cases.all():
            response = Response.objects.get(case=case, model=model)
            for item, state in zip(
                case.rubric.order_by("position"), VERDICTS[case.question_id][name], strict=True
            ):
                Verdict.objects.create(run=run, response=response, rubric_item=item, state=state)
    return dataset


def built(project) -> None:
    """pilot: three drafts judged, pruned (s-01 too easy), s-02 and s-03 published."""
    author = get_user_model().objects.create_user("author")
    judged = pilot_judged(pilot_drafts(project, author))
    construct("prune", "--project", "pilot", "--dataset", judged.name)
    for qid in ("s-02", "s-03"):
        draft = DraftCase.objects.get(question_id=qid)
        rubric_top_up(draft, author=author)
        draft_case_difficulty_set(draft=draft, difficulty="hard" if qid == "s-03" else "normal")
        draft_case_accept(draft=draft)
    construct("publish", "--project", "pilot")
