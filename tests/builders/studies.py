"""Building studies for tests through the real services (only the benchmark rows are faked)."""

import io
import json

from django.core.management import call_command

from annotation import selectors as annotation_selectors
from annotation import services as annotation_services
from annotation.models import Expert
from benchmark.models import Dataset, JudgeRun, ModelUnderTest, RubricItem, Verdict
from tests.builders.accounts import ExpertFactory
from tests.builders.datasets import (
    DatasetFactory,
    JudgeFactory,
    JudgeRunFactory,
    ModelUnderTestFactory,
    ResponseFactory,
    case_with_rubric,
)
from tests.builders.labels import all_labels
from validation import closing, selectors, services
from validation.models import Study

XSS = '<script>alert("x")</script><img src=x onerror=alert(1)>'
FORMULA = "=cmd|' /C calc'!A0"

MODEL_NAME_MARKER = "secret-model-name-ZQX"


def dataset_with_responses(
    *, cases: int, models: int = 1, scenes: tuple[str, ...] = ("职场心理", "亲密关系")
) -> tuple[Dataset, list[ModelUnderTest]]:
    dataset = DatasetFactory()
    mods = [ModelUnderTestFactory(name=f"{MODEL_NAME_MARKER}-{i}") for i in range(models)]
    for index in range(cases):
        case = case_with_rubric(
            dataset=dataset,
            position=index,
            difficulty="hard" if index % 3 == 0 else "normal",
            primary_scene=scenes[index % len(scenes)],
        )
        for model in mods:
            ResponseFactory(model=model, case=case, text=f"回应 {index}：我听见了你的感受。")
    return dataset, mods


def open_study(
    *,
    cases: int,
    experts: list[Expert],
    fraction: float = 1.0,
    models: int = 1,
    seed: int = 7,
    name: str = "study-a",
    judge: bool = False,
    **options,
) -> Study:
    dataset, mods = dataset_with_responses(cases=cases, models=models)
    runs = [JudgeRunFactory(model=m, dataset=dataset) for m in mods] if judge else []
    study = services.study_create(
        name=name,
        dataset=dataset,
        models=mods,
        judge_runs=runs,
        fraction=fraction,
        seed=seed,
        experts=experts,
        **options,
    )
    return services.study_open(study=study)


def expert_label(expert: int, item: RubricItem) -> bool:
    """Experts mostly agree (a hit on positive points), each dissenting on a few criteria."""
    truth = item.points is not None and item.points > 0
    return truth ^ ((expert + item.case.position * 3 + item.position) % 7 == 0)


def judge_state(item: RubricItem) -> str:
    if item.case.position == 1 and item.position == 0:
        return Verdict.State.ERROR
    truth = item.points is not None and item.points > 0
    wrong = (item.case.position * 2 + item.position) % 9 == 0
    return Verdict.State.MET if truth ^ wrong else Verdict.State.NOT_MET


def rated_study(*, name: str = "report-study", cases: int = 6, models: int = 3, rate=True):
    """A closed study: three experts rated every unit, one judge (two names: the second judge
    flips every verdict of the first) judged every response; model names are hostile text."""
    dataset, mods = dataset_with_responses(cases=cases, models=models)
    mods[0].name = XSS
    mods[1].name = FORMULA
    for m in mods[:2]:
        m.save()
    judges = [JudgeFactory(name="judge-a"), JudgeFactory(name="judge-b")]
    runs = [JudgeRunFactory(judge=j, model=m, dataset=dataset) for j in judges for m in mods]
    experts = ExpertFactory.create_batch(3)
    study = services.study_create(name=name, dataset=dataset, models=mods, judge_runs=runs,
                                  fraction=1.0, seed=3, experts=experts)  # fmt: skip
    services.study_open(study=study)
    for index, expert in enumerate(experts if rate else []):
        while True:
            assignment = annotation_services.assignment_claim_next(user=expert.user,
                                                                   pool=study.pool)  # fmt: skip
            if assignment is None:
                break
            tokens = annotation_selectors.criterion_tokens(assignment=assignment)
            items = RubricItem.objects.select_related("case").in_bulk(tokens.values())
            labels = [{"criterion": t, "hit": expert_label(index, items[pk])}
                      for t, pk in tokens.items()]  # fmt: skip
            annotation_services.assignment_submit(assignment=assignment, labels=labels)
    for run in runs:
        for response in run.model.responses.filter(case__dataset=dataset):
            for item in response.case.rubric.all():
                state = judge_state(item)
                if run.judge.name == "judge-b" and state != Verdict.State.ERROR:
                    state = Verdict.State.NOT_MET if state == Verdict.State.MET else "met"
                Verdict.objects.create(run=run, response=response, rubric_item=item, state=state)
    if rate:
        services.study_close(study=study, unrated=closing.SENIOR)
    return selectors.study_get(name=name)


def report_json(name: str, *extra: str) -> dict:
    out = io.StringIO()
    call_command("study", "report", name, "--format", "json", "--resamples", "200", *extra,
                 stdout=out)  # fmt: skip
    return json.loads(out.getvalue())


def rate(expert, study, hit=True):
    assignment = annotation_services.assignment_claim_next(user=expert.user, pool=study.pool)
    annotation_services.assignment_submit(
        assignment=assignment, labels=all_labels(assignment, hit=hit)
    )
    return assignment


def study_with_repeats(name: str):
    return repeats_add(rated_study(name=name))


def repeats_add(study):
    """judge-a with two repeats: repeat 1 copies run 0, repeat 2 flips criterion 1 of every
    case and has no verdict on criterion 2 of the first case."""
    for run in JudgeRun.objects.filter(judge__name="judge-a", repeat_of__isnull=True):
        for index in (1, 2):
            repeat = JudgeRunFactory(
                judge=run.judge, model=run.model, dataset=run.dataset, repeat_of=run,
                repeat_index=index,
            )  # fmt: skip
            for v in Verdict.objects.filter(run=run).select_related("rubric_item__case"):
                item = v.rubric_item
                if index == 2 and item.case.position == 0 and item.position == 2:
                    continue
                state = v.state
                if index == 2 and item.position == 1 and state != Verdict.State.ERROR:
                    state = flipped(state)
                Verdict.objects.create(
                    run=repeat, response=v.response, rubric_item=item, state=state
                )
    return study


def flipped(state: str) -> str:
    return Verdict.State.NOT_MET if state == Verdict.State.MET else Verdict.State.MET
