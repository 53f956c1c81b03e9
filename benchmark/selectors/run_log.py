"""A judge run as a per-answer log: what `heartbench export-log` writes (JSON Lines, or an
Inspect eval log through ``benchmark.inspect_log``). The fields are described by
``benchmark/schemas/export-log.schema.json``."""

from collections.abc import Iterator

from benchmark.models import JudgeCall, JudgeRun, Response, Verdict
from benchmark.selectors.leaderboard import RunScores
from benchmark.selectors.runs import judge_run_cases, judge_run_record


def judge_run_log_header(*, run: JudgeRun) -> dict:
    """The run as every line of its log names it: judge, model, dataset, status, and what the
    run recorded (an engine run's options, requests, tokens and cost; an import's summary)."""
    return {
        "id": run.pk,
        "judge": run.judge.name,
        "judge_model": run.judge.model,
        "model": run.model.name,
        "dataset": run.dataset.name,
        "dataset_version": run.dataset.version,
        "source": run.source,
        "status": run.status,
        "created_at": run.created_at.isoformat(),
        "finished_at": run.finished_at.isoformat() if run.finished_at else None,
        **judge_run_record(run=run),
    }


def judge_run_log_lines(*, run: JudgeRun, scores: RunScores) -> Iterator[dict]:
    """One record per answer the run judges (its cases: ``judge_run_cases``), in dataset order: the
    dialogue, the answer, each criterion with the judge's verdict, reasoning and raw reply, the
    requests that asked the judge (an engine run's ``JudgeCall`` s), and the question's score
    from ``scores`` (``judge_run_scores`` of the run; null when a verdict is an error or
    missing)."""
    header = judge_run_log_header(run=run)
    verdicts = {v.rubric_item_id: v for v in Verdict.objects.filter(run=run)}
    calls: dict[int, list[dict]] = {}
    for call in JudgeCall.objects.filter(run=run).order_by("started_at", "pk"):
        verdict = verdicts.get(call.rubric_item_id)
        failed = verdict is not None and verdict.state == Verdict.State.ERROR
        calls.setdefault(call.response_id, []).append(
            {
                "messages": call.messages,
                "reply": verdict.raw_reply if verdict else "",
                "error": verdict.reasoning if failed else None,
                "started_at": call.started_at.isoformat(),
                "seconds": call.seconds,
                "asks": call.asks,
                "tokens_in": call.tokens_in,
                "tokens_out": call.tokens_out,
                "cached": call.cached,
            }
        )
    responses = (
        Response.objects.filter(model=run.model, case__in=judge_run_cases(run=run))
        .select_related("case")
        .prefetch_related("case__rubric")
        .order_by("case__position")
    )
    for response in responses:
        case = response.case
        criteria = []
        for item in sorted(case.rubric.all(), key=lambda i: i.position):
            verdict = verdicts.get(item.pk)
            criteria.append(
                {
                    "position": item.position,
                    "ability": item.ability,
                    "points": item.points,
                    "text": item.text,
                    "verdict": verdict.state if verdict else None,
                    "rubric_version": verdict.rubric_version if verdict else None,
                    "reasoning": verdict.reasoning if verdict else "",
                    "raw_reply": verdict.raw_reply if verdict else "",
                }
            )
        score = scores.cases[case.pk]
        yield {
            "run": header,
            "question_id": case.question_id,
            "difficulty": case.difficulty,
            "primary_scene": case.primary_scene,
            "secondary_scene": case.secondary_scene,
            "dialogue": case.dialogue,
            "response": response.text,
            "criteria": criteria,
            "calls": calls.get(response.pk, []),
            "scoring": scores.scoring,
            "scored": score is not None,
            "score": score.score if score else None,
            "abilities": score.abilities if score else None,
            "catastrophic": score.catastrophic if score else None,
        }
