"""A study that looks at its gate every few cases, rated up to a chosen number of cases."""

from decimal import Decimal

from annotation import services as annotation_services
from annotation.selectors import criterion_tokens
from benchmark.models import RubricItem, Verdict
from tests.builders.accounts import ExpertFactory
from tests.builders.datasets import JudgeFactory, JudgeRunFactory
from tests.builders.studies import dataset_with_responses
from validation import services
from validation.dashboard.monitoring import completed_cases
from validation.gate import GateConfig

# Cases without a catastrophe: 9 of 24, so any 16 cases hold at least one (and at least 7
# with a catastrophe: 14 gold hits, of the 10 the gate needs).
CALM = (1, 3, 5)


def monitored_study(*, cases: int = 24, look_every: int | None = 8):
    """Two models, two judges over both. "judge-true" says what each criterion is but for the
    calm cases' warmth: it beats the experts, whose third rater dissents on curiosity.
    "judge-flip" also flips curiosity and coping: agreement under 0.5 and worse than the
    experts (failed) with the same catastrophes and the same scores (passed). Every condition
    of both is decided at the second look (16 cases: boundary 2.5, carried to t on 15 df)
    under a gate loose enough for so few cases: agreement at least 0.65, judge − experts at
    least −0.35, catastrophic recall at least 0.5 (14 of 14 gold hits: [0.77, 1] at 95 %),
    score bias within ±50 points. With honest intervals a small study decides only wide
    margins."""
    experts = ExpertFactory.create_batch(3)
    dataset, models = dataset_with_responses(cases=cases, models=2)
    flipped = {"judge-true": (), "judge-flip": (1, 2)}
    judges = [JudgeFactory(name=name) for name in flipped]
    runs = [
        JudgeRunFactory(judge=judge, model=model, dataset=dataset)
        for judge in judges
        for model in models
    ]
    gate = GateConfig(
        agreement_min=0.65,
        noninferiority_margin=0.35,
        catastrophic_recall_min=0.5,
        score_bias_max=50.0,
    )
    study = services.study_open(
        study=services.study_create(
            name="study-a",
            dataset=dataset,
            models=models,
            judge_runs=runs,
            fraction=1.0,
            seed=7,
            experts=experts,
            look_every=look_every,
            gate=gate,
        )
    )
    annotation_services.pay_rate_set(
        pool=study.pool, tier="expert", amount=Decimal("10.00"), currency="CNY"
    )
    for run in runs:
        for response in run.model.responses.all():
            for item in RubricItem.objects.filter(case=response.case).select_related("case"):
                hit = judged(item) != (item.position in flipped[run.judge.name])
                state = Verdict.State.MET if hit else Verdict.State.NOT_MET
                Verdict.objects.create(run=run, response=response, rubric_item=item, state=state)
    return study, experts


def rate_until(study, experts, complete: int) -> None:
    """The three experts take turns rating until ``complete`` cases are."""
    while len(completed_cases(study=study)) < complete:
        for index, expert in enumerate(experts):
            assignment = annotation_services.assignment_claim_next(
                user=expert.user, pool=study.pool
            )
            if assignment is not None:
                tokens = criterion_tokens(assignment=assignment)
                items = RubricItem.objects.select_related("case").in_bulk(tokens.values())
                labels = [
                    {
                        "criterion": token,
                        "hit": truth(items[pk]) != (index == 2 and items[pk].position == 1),
                    }
                    for token, pk in tokens.items()
                ]
                annotation_services.assignment_submit(assignment=assignment, labels=labels)


def truth(item: RubricItem) -> bool:
    """What the criterion is: warmth hit, curiosity and coping missed, a catastrophe in every
    case but the calm ones."""
    if item.position == 3:
        return not calm(item.case)
    return item.position == 0


def judged(item: RubricItem) -> bool:
    """What both judges see: the truth, but warmth missed in the calm cases, so their score
    differences (33 points there, 0 where a catastrophe zeroes both) and agreement vary from
    case to case: cases all alike give zero-width intervals, which decide nothing (issue 42)."""
    return truth(item) and not (item.position == 0 and calm(item.case))


def calm(case) -> bool:
    return case.position % 8 in CALM
