"""A draft with an author, three criteria and three reference answers, and snapshots of it
judged by hand (Dataset, Case, RubricItem, Response, JudgeRun, Verdict, ConstructionSnapshot,
SnapshotCriterion), as the snapshot service will write them."""

from types import SimpleNamespace

from benchmark.models import ConstructionSnapshot, DraftResponse, Judge, SnapshotCriterion, Verdict
from benchmark.services.construction import project_create, seeds_import
from benchmark.services.criteria import draft_case_author_set, draft_criterion_add
from tests.builders.construction import BASE_SEEDS
from tests.builders.datasets import (
    CaseFactory,
    DatasetFactory,
    JudgeRunFactory,
    ModelUnderTestFactory,
    ResponseFactory,
    RubricItemFactory,
)

CRITERIA = [
    ("warmth", 3, "回应了用户的疲惫，语气温暖"),
    ("curiosity", 2, "询问了失眠的具体情况"),
    ("catastrophic", None, "建议用户靠饮酒入睡"),
]
ANSWERS = {
    "ref-b": "听起来你真的很累。这样的状态持续多久了？晚上躺下时脑子里通常在想什么？",
    "ref-a": "压力大时很多人都会失眠，你并不孤单。我们可以一起看看白天有哪些事最让你挂心。",
    "ref-c": "喝点酒就能睡着了，别想太多。",
}


def selfcheck_world(*, author, name: str = "pilot") -> SimpleNamespace:
    """The project's first draft, written by ``author``; its answers created out of model
    name order so the choice (by name: ref-a, ref-b) is seen to sort."""
    project = project_create(name=name, dataset_name=f"heartbench-{name}")
    draft = seeds_import(path=BASE_SEEDS, project=project).drafts[0]
    draft = draft_case_author_set(draft=draft, author=author)
    criteria = [
        draft_criterion_add(draft=draft, ability=ability, points=points, text=text, author=author)
        for ability, points, text in CRITERIA
    ]
    responses = {
        model: DraftResponse.objects.create(
            draft=draft, model=ModelUnderTestFactory(name=f"{name}-{model}"), text=text
        )
        for model, text in ANSWERS.items()
    }
    return SimpleNamespace(project=project, draft=draft, criteria=criteria, responses=responses)


def snapshot_judged(*, draft, states: dict[str, list[str]], judge_name: str = "judge-x"):
    """Freeze the draft's criteria (at their current versions) and answers as a dataset and
    judge every answer: ``states[model_key]`` lists a verdict state per criterion."""
    dataset = DatasetFactory()
    case = CaseFactory(dataset=dataset, question_id=draft.question_id, dialogue=draft.dialogue)
    snapshot = ConstructionSnapshot.objects.create(
        project=draft.project, dataset=dataset, purpose="quality"
    )
    items = []
    for position, criterion in enumerate(draft.criteria.order_by("position")):
        item = RubricItemFactory(
            case=case, position=position, ability=criterion.ability, points=criterion.points,
            text=criterion.text,
        )  # fmt: skip
        SnapshotCriterion.objects.create(
            snapshot=snapshot, rubric_item=item, criterion=criterion,
            criterion_version=criterion.version,
        )  # fmt: skip
        items.append(item)
    judge, _ = Judge.objects.get_or_create(name=judge_name, defaults={"model": "judge-model"})
    for answer in draft.responses.select_related("model"):
        response = ResponseFactory(model=answer.model, case=case, text=answer.text)
        run = JudgeRunFactory(judge=judge, model=answer.model, dataset=dataset)
        key = answer.model.name.removeprefix(f"{draft.project.name}-")
        for item, state in zip(items, states[key], strict=True):
            Verdict.objects.create(
                run=run, response=response, rubric_item=item, state=state,
                rubric_version=item.version,
            )  # fmt: skip
    return snapshot
