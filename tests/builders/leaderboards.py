"""Datasets judged for leaderboard tests: verdicts per case, boards, two judges, a kept board."""

from benchmark.models import Response, Verdict
from tests.builders.datasets import (
    DatasetFactory,
    JudgeFactory,
    JudgeRunFactory,
    ModelUnderTestFactory,
    ResponseFactory,
    case_with_rubric,
)
from tests.builders.studies import XSS

BOARD_TASK = "benchmark.tasks.leaderboard_warm_task"
REASONING = "judge-reasoning-marker-7Q"
TWO_JUDGES_RUBRIC = [("warmth", 3), ("curiosity", 6), ("catastrophic", None)]

RUBRIC = [("warmth", 3), ("warmth", -10), ("curiosity", 6), ("catastrophic", None)]


def judge(run, case, states):
    response = ResponseFactory(model=run.model, case=case)
    for item, state in zip(case.rubric.order_by("position"), states, strict=True):
        Verdict.objects.create(run=run, response=response, rubric_item=item, state=state)


def board(models):
    return {
        "dataset": "d<b>",
        "dataset_version": 1,
        "demo": True,
        "split": "all",
        "scoring": "paper",
        "judge": XSS,
        "models": models,
    }


def model(name, overall=50.0):
    return {
        "model": name,
        "overall": overall,
        "ci95": [overall - 5, overall + 5],
        "categories": {"emotion": 40.0},
        "abilities": {"warmth": 80.0, "humor": 10.0},
        "coverage": {"scored": 9, "total": 10},
        "catastrophic_cases": 1,
        "normal": 55.0,
        "hard": 40.0,
        "hard_decay": {"points": 15.0, "of_normal": 0.27, "of_hard": 0.375},
    }


def judged_dataset(*, models: int, cases: int = 4, judge: str = "judge-x"):
    """A dataset every model answered and one judge judged; model k hits a different share."""
    dataset = DatasetFactory()
    the_judge = JudgeFactory(name=judge)
    case_list = [
        case_with_rubric(dataset=dataset, position=i, difficulty="hard" if i % 2 else "normal")
        for i in range(cases)
    ]
    names = []
    for k in range(models):
        model = ModelUnderTestFactory(name=f"board-model-{k:02d}")
        names.append(model.name)
        run = JudgeRunFactory(judge=the_judge, model=model, dataset=dataset)
        for case in case_list:
            response = ResponseFactory(model=model, case=case, text=f"answer-text-{k}-{case.pk}")
            for item in case.rubric.all():
                hit = item.ability != "catastrophic" and (item.position + k + case.position) % 3
                Verdict.objects.create(
                    run=run,
                    response=response,
                    rubric_item=item,
                    state=Verdict.State.MET if hit else Verdict.State.NOT_MET,
                    reasoning=REASONING,
                )
    return dataset, names


def kept_board_dataset():
    """Three cases (normal, hard, normal) judged by "claude" on models good and bad."""
    dataset = DatasetFactory(name="kept-set")
    cases = [
        case_with_rubric(dataset=dataset, rubric=RUBRIC, difficulty=difficulty)
        for difficulty in ("normal", "hard", "normal")
    ]
    the_judge = JudgeFactory(name="claude")
    for name, states in [("good", ["met", "not_met", "met", "not_met"]),
                         ("bad", ["met", "met", "not_met", "met"])]:  # fmt: skip
        run = JudgeRunFactory(
            judge=the_judge, dataset=dataset, model=ModelUnderTestFactory(name=name)
        )
        for case in cases:
            judge(run, case, states)
    return dataset


def judge_cases(run, cases, hits):
    """Verdicts of ``run`` on ``cases``; ``hits`` criteria (of the first two) met in each."""
    for case in cases:
        response = Response.objects.filter(model=run.model, case=case).first()
        response = response or ResponseFactory(model=run.model, case=case)
        for item in case.rubric.order_by("position"):
            met = item.position < hits
            Verdict.objects.create(
                run=run, response=response, rubric_item=item,
                state=Verdict.State.MET if met else Verdict.State.NOT_MET,
            )  # fmt: skip


def two_judges_dataset():
    """beta judged m1 and m2 on all 10 cases and m3 on 8; alpha judged m4 and m1 on one case."""
    dataset = DatasetFactory(name="two-judges")
    cases = [
        case_with_rubric(
            dataset=dataset, rubric=TWO_JUDGES_RUBRIC, difficulty="hard" if i % 2 else "normal"
        )
        for i in range(10)
    ]
    beta, alpha = JudgeFactory(name="beta"), JudgeFactory(name="alpha")
    models = {name: ModelUnderTestFactory(name=name) for name in ("m1", "m2", "m3", "m4")}
    judge_cases(JudgeRunFactory(judge=beta, dataset=dataset, model=models["m1"]), cases, 1)
    judge_cases(JudgeRunFactory(judge=beta, dataset=dataset, model=models["m2"]), cases, 2)
    judge_cases(JudgeRunFactory(judge=beta, dataset=dataset, model=models["m3"]), cases[:8], 2)
    # alpha loves m4: a perfect score on the one case it judged.
    judge_cases(JudgeRunFactory(judge=alpha, dataset=dataset, model=models["m4"]), cases[:1], 2)
    judge_cases(JudgeRunFactory(judge=alpha, dataset=dataset, model=models["m1"]), cases[:1], 0)
    return dataset
