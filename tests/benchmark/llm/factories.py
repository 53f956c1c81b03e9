"""Judge-engine test data: a dataset of cases with rubrics and one model's responses."""

from benchmark import models
from benchmark.llm.fake_server import fake_verdict
from tests.benchmark.factories import (
    DatasetFactory,
    ModelUnderTestFactory,
    ResponseFactory,
    case_with_rubric,
)

RUBRIC = [("warmth", 3), ("curiosity", 5), ("emotional_coping", -5), ("catastrophic", None)]


def answered_dataset(
    *, cases: int = 4, model_name: str | None = None, rubric=None, dataset_name: str | None = None
):
    """``cases`` cases with a 4-criterion rubric each, all answered by one model."""
    dataset = DatasetFactory(**({"name": dataset_name} if dataset_name else {}))
    model = ModelUnderTestFactory(**({"name": model_name} if model_name else {}))
    for _ in range(cases):
        case = case_with_rubric(dataset=dataset, rubric=rubric or RUBRIC)
        # The dataset's name too: a second seed's prompts are its own, never the cache's.
        text = f"回复 {dataset.name} {case.question_id}：我在听。"
        ResponseFactory(model=model, case=case, text=text)
    return dataset, model


def expected_states(run: models.JudgeRun) -> dict[int, str]:
    """What the fake judge's verdicts are for every criterion the run's model answered."""
    items = models.RubricItem.objects.filter(
        case__dataset=run.dataset, case__responses__model=run.model
    )
    return {item.pk: "met" if fake_verdict(item.text) else "not_met" for item in items}


def stored_states(run: models.JudgeRun) -> dict[int, str]:
    return dict(models.Verdict.objects.filter(run=run).values_list("rubric_item_id", "state"))
