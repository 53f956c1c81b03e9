"""Judge-engine scenarios: a dataset one model answered, the fake judge's expected verdicts, one
engine run, the `judge` command, many concurrent asks, a random judge of the released data."""

import io
import random

from django.core.management import call_command

from benchmark import models
from benchmark.llm.client import RetryPolicy
from benchmark.llm.fake_server import fake_verdict
from benchmark.llm.prompts import DEFAULT_JUDGE_TEMPLATE, template_load
from benchmark.models import (
    Judge,
    JudgeRun,
    ModelUnderTest,
    Response,
    RubricItem,
    Verdict,
)
from benchmark.services.judging import (
    EngineOptions,
    judge_resolve,
    judge_run_execute,
    judge_run_start,
)
from tests.builders.datasets import (
    DatasetFactory,
    JudgeFactory,
    ModelUnderTestFactory,
    ResponseFactory,
    case_with_rubric,
)

SPECIAL = "其他"
FAST_RETRY = RetryPolicy(max_attempts=4, max_total_wait=10, backoff_base=0.01)
QUICK = ["--no-progress", "--timeout", "2", "--max-retry-wait", "5"]

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


def judge_once(fake, model, dataset, *, granularity="response", force=False, **options):
    judge = judge_resolve(
        name="fake-judge",
        endpoint_model="fake-judge-model",
        base_url=fake.base_url,
        template=template_load(DEFAULT_JUDGE_TEMPLATE),
    )
    run, todo = judge_run_start(
        judge=judge, model=model, dataset=dataset, granularity=granularity, force=force
    )
    if not todo:
        return run
    settings = {"concurrency": 4, "timeout": 2.0, "retry": FAST_RETRY, "force": force, **options}
    judge_run_execute(run_id=run.pk, options=EngineOptions(**settings))
    run.refresh_from_db()
    return run


def first_response(model) -> Response:
    return Response.objects.filter(model=model).order_by("case__position").first()


def judge(model, *args: str) -> str:
    out = io.StringIO()
    call_command("judge", "--model", model.name, "--judge-model", "fake-judge", *args, *QUICK,
                 stdout=out)  # fmt: skip
    return out.getvalue()


def judge_randomly(dataset, rows, *, name, seed):
    rng = random.Random(seed)
    details = {
        row["question_id"]: [
            int(rng.random() < (0.04 if item["dimension"] == SPECIAL else 0.45))
            for item in row["rubric"]
        ]
        for row in rows
    }
    model = ModelUnderTest.objects.create(name=name)
    # One judge for every model: a leaderboard compares models under one judge.
    judge = Judge.objects.filter(name="random-judge").first() or JudgeFactory(name="random-judge")
    run = JudgeRun.objects.create(judge=judge, model=model, dataset=dataset)
    items = RubricItem.objects.filter(case__dataset=dataset).select_related("case")
    responses = {}
    verdicts = []
    for item in items.order_by("case_id", "position"):
        if item.case_id not in responses:
            responses[item.case_id] = Response.objects.create(model=model, case=item.case, text="…")
        hit = details[item.case.question_id][item.position]
        verdicts.append(Verdict(run=run, response=responses[item.case_id], rubric_item=item,
                                state="met" if hit else "not_met"))  # fmt: skip
    Verdict.objects.bulk_create(verdicts)
    return details
