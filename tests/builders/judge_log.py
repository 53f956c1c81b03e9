"""A judge run with verdicts and logged calls, as `heartbench export-log` reads it."""

from datetime import UTC, datetime

from benchmark.models import JudgeCall, Verdict
from tests.builders.datasets import (
    DatasetFactory,
    JudgeFactory,
    JudgeRunFactory,
    ModelUnderTestFactory,
    ResponseFactory,
    case_with_rubric,
)

RUBRIC = [("warmth", 3), ("warmth", -10), ("curiosity", 6), ("catastrophic", None)]
MET, MISS, ERR = "met", "not_met", "error"


def logged_run():
    """A run of judge "claude" on log-set: q-ok judged, q-err with an error, q-unanswered not
    answered; each answered case with one logged judge call."""
    dataset = DatasetFactory(name="log-set")
    judged = case_with_rubric(dataset=dataset, rubric=RUBRIC, question_id="q-ok")
    failed = case_with_rubric(dataset=dataset, rubric=RUBRIC, question_id="q-err")
    case_with_rubric(dataset=dataset, rubric=RUBRIC, question_id="q-unanswered")
    run = JudgeRunFactory(
        judge=JudgeFactory(name="claude", model="claude-sonnet-4-5"),
        model=ModelUnderTestFactory(name="warm-bot"),
        dataset=dataset,
        source="engine",
        calls=4,
        tokens_in=1200,
        tokens_out=300,
        cost=0.25,
    )
    for case, states in ((judged, [MET, MISS, MET, MISS]), (failed, [MET, ERR, MISS, MISS])):
        response = ResponseFactory(model=run.model, case=case, text=f"answer to {case.question_id}")
        for item, state in zip(case.rubric.order_by("position"), states, strict=True):
            Verdict.objects.create(
                run=run,
                response=response,
                rubric_item=item,
                state=state,
                reasoning=f"why {item.position}",
                raw_reply=f'{{"detail": "{state}"}}',
            )
        JudgeCall.objects.create(
            run=run,
            response=response,
            rubric_item=case.rubric.get(position=0),
            messages=[{"role": "user", "content": f"judge prompt for {case.question_id}"}],
            started_at=datetime(2026, 11, 30, 9, 0, tzinfo=UTC),
            seconds=1.25,
            asks=1,
            tokens_in=500,
            tokens_out=120,
            cached=False,
        )
    return run
