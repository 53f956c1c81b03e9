"""A judge run as an Inspect AI eval log, written through ``inspect_ai.log`` (the optional
``inspect`` extra), so that ``inspect view`` opens it.

The mapping: one sample per answer (id: the question id); the dialogue is the input (A: user,
B: assistant), the answer the output (and each score's answer), the rubric's texts the target.
Each ability of the question's rubric is one scorer, the same in every sample: its score in
the question (the catastrophic one 1 when it fired; "error" when one of its verdicts is one;
absent while the question is unscored otherwise), its criteria with their verdicts, the
judge's reasoning and raw replies in the explanation and metadata; the question's score is
``question_score`` (absent when the question is unscored), listed first. Scores are rounded as
the board shows them; the exact score is in ``question_score``'s metadata. Each request that
asked the judge about the answer is one of the sample's model events (messages sent, raw reply,
tokens, time; from the cache: "read"); their tokens are the sample's usage and their span its
time. The run's requests, tokens and cost are the log's model usage; the run's overall and
category scores its metrics. The samples are the run's own cases (a ``--limit`` run's first
ones); the task names the judge and the dataset, and the generate config holds the judge's
temperature, seed and max tokens.
"""

from collections.abc import Iterable
from datetime import datetime, timedelta
from pathlib import Path

from benchmark.scoring import ModelScores
from benchmark.taxonomy import ABILITIES, CATASTROPHIC
from config.files import file_produce_atomically

INSTALL_HINT = "pip install --editable '.[inspect]' (in the platform's folder)"
TASK = "heartbench"

# LLMRun.Status -> the Inspect log's status.
STATUS = {
    "finished": "success",
    "stopped": "cancelled",
    "failed": "error",
    "pending": "started",
    "running": "started",
}
CRITERION_KEYS = (
    "position", "ability", "points", "text", "verdict", "reasoning", "raw_reply", "rubric_version",
)  # fmt: skip


class InspectUnavailable(RuntimeError):
    """inspect_ai is not installed."""


def inspect_require() -> None:
    """Raise InspectUnavailable, saying how to install it, when inspect_ai is missing."""
    try:
        import inspect_ai.log  # noqa: F401
    except ImportError as exc:
        raise InspectUnavailable(
            f"--format inspect needs the optional inspect_ai package: {INSTALL_HINT}"
        ) from exc


# Scores as the leaderboard shows them; the exact figures are in the case score's metadata.
SHOWN_DECIMALS = 2


def _ability_value(line: dict, ability: str, criteria: list[dict]) -> float | str | None:
    """An ability's score in one question: its score (the catastrophic one 1 when it fired,
    else 0) when the question is scored; "error" when one of its verdicts is; else none."""
    if line["scored"]:
        if ability == CATASTROPHIC:
            return 1 if line["catastrophic"] else 0
        return line["abilities"].get(ability)
    return "error" if any(c["verdict"] == "error" for c in criteria) else None


def _criterion_line(c: dict) -> str:
    """One criterion in a score's explanation: number, points, text, verdict, reasoning."""
    points = "catastrophic" if c["points"] is None else f"{c['points']:+d}"
    verdict = (c["verdict"] or "-").replace("_", " ")
    return f"{c['position'] + 1}. [{points}] {c['text']}: {verdict}. {c['reasoning']}"


def _timing(calls: list[dict]) -> dict:
    """A sample's timing from its judge calls: from the first ask to the last outcome, and the
    time the calls took (they overlap only at item granularity)."""
    if not calls:
        return {}
    starts = [datetime.fromisoformat(c["started_at"]) for c in calls]
    ends = [start + timedelta(seconds=c["seconds"]) for start, c in zip(starts, calls, strict=True)]
    return {
        "started_at": min(starts).isoformat(),
        "completed_at": max(ends).isoformat(),
        "total_time": (max(ends) - min(starts)).total_seconds(),
        "working_time": sum(c["seconds"] for c in calls),
    }


def _model_events(calls: list[dict], *, judge: str, config):
    """Each judge call as a model event: the messages sent, the reply with its tokens, when and
    how long, "read" from the cache, the failure's reason as its error."""
    from inspect_ai.event import ModelEvent
    from inspect_ai.model import (
        ChatMessageAssistant,
        ChatMessageSystem,
        ChatMessageUser,
        ModelOutput,
        ModelUsage,
    )

    role = {"system": ChatMessageSystem, "user": ChatMessageUser, "assistant": ChatMessageAssistant}
    first = min((datetime.fromisoformat(c["started_at"]) for c in calls), default=None)
    events = []
    for c in calls:
        started = datetime.fromisoformat(c["started_at"])
        output = ModelOutput.from_content(model=judge, content=c["reply"])
        output.usage = ModelUsage(
            input_tokens=c["tokens_in"],
            output_tokens=c["tokens_out"],
            total_tokens=c["tokens_in"] + c["tokens_out"],
        )
        output.time = c["seconds"]
        events.append(
            ModelEvent(
                model=judge,
                input=[role[m["role"]](content=m["content"]) for m in c["messages"]],
                tools=[],
                tool_choice="none",
                config=config,
                output=output,
                error=c["error"],
                cache="read" if c["cached"] else None,
                timestamp=started,
                completed=started + timedelta(seconds=c["seconds"]),
                working_start=(started - first).total_seconds(),
                working_time=c["seconds"],
                retries=c["asks"] - 1 if c["asks"] else None,
            )
        )
    return events


def _usage(calls: list[dict], *, judge: str) -> dict:
    from inspect_ai.model import ModelUsage

    if not calls:
        return {}
    tokens_in = sum(c["tokens_in"] for c in calls)
    tokens_out = sum(c["tokens_out"] for c in calls)
    return {
        judge: ModelUsage(
            input_tokens=tokens_in, output_tokens=tokens_out, total_tokens=tokens_in + tokens_out
        )
    }


def _sample(line: dict, *, judge: str, config):
    from inspect_ai.log import EvalError, EvalSample
    from inspect_ai.model import (
        ChatMessageAssistant,
        ChatMessageUser,
        ModelOutput,
    )
    from inspect_ai.scorer import Score

    message = {"A": ChatMessageUser, "B": ChatMessageAssistant}
    dialogue = [message[turn["role"]](content=turn["content"]) for turn in line["dialogue"]]
    by_ability: dict[str, list[dict]] = {}
    for c in line["criteria"]:
        by_ability.setdefault(c["ability"], []).append(c)
    # The case score first, then the abilities in the taxonomy's order: the viewer's answer
    # column reads a sample's first score, which every scored sample then has.
    scores = {}
    if line["scored"]:
        scores["question_score"] = Score(
            value=round(line["score"], SHOWN_DECIMALS),
            answer=line["response"],
            explanation="the mean of the abilities' scores: "
            + ", ".join(f"{a} {v:.2f}" for a, v in line["abilities"].items())
            + ("; a catastrophic criterion was hit" if line["catastrophic"] else ""),
            metadata={
                "score": line["score"],
                "abilities": line["abilities"],
                "catastrophic": line["catastrophic"],
            },
        )
    order = {ability.code: n for n, ability in enumerate(ABILITIES)}
    for ability, criteria in sorted(by_ability.items(), key=lambda item: order[item[0]]):
        value = _ability_value(line, ability, criteria)
        if value is None:
            continue
        scores[ability] = Score(
            value=round(value, SHOWN_DECIMALS) if isinstance(value, float) else value,
            answer=line["response"],
            explanation="\n".join(_criterion_line(c) for c in criteria),
            metadata={"criteria": [{key: c[key] for key in CRITERION_KEYS} for c in criteria]},
        )
    errors = [c for c in line["criteria"] if c["verdict"] == "error"]
    # A question with an error verdict is unscored (DESIGN): the viewer shows it as an error.
    error = (
        EvalError(
            message=(
                f"{len(errors)} {'criterion has' if len(errors) == 1 else 'criteria have'} "
                f"no verdict: {errors[0]['reasoning']}"
            ),
            traceback="",
            traceback_ansi="",
        )
        if errors
        else None
    )
    return EvalSample(
        id=line["question_id"],
        error=error,
        epoch=1,
        input=dialogue,
        target=[c["text"] for c in line["criteria"]],
        messages=[*dialogue, ChatMessageAssistant(content=line["response"])],
        output=ModelOutput.from_content(model=line["run"]["model"], content=line["response"]),
        scores=scores,
        metadata={
            key: line[key]
            for key in ("difficulty", "primary_scene", "secondary_scene", "scoring", "scored")
        },
        events=_model_events(line["calls"], judge=judge, config=config),
        model_usage=_usage(line["calls"], judge=judge),
        **_timing(line["calls"]),
    )


def inspect_log_write(
    *, path: Path, header: dict, lines: Iterable[dict], model: ModelScores
) -> None:
    """Write the log to ``path`` whole or not at all: the ``.json`` format for a ``.json`` path,
    else Inspect's ``.eval``. ``header`` is ``judge_run_log_header``, ``lines`` the run's
    ``judge_run_log_lines`` and ``model`` the model's scores over the dataset."""
    inspect_require()
    from inspect_ai.log import (
        EvalConfig,
        EvalDataset,
        EvalLog,
        EvalMetric,
        EvalResults,
        EvalScore,
        EvalSpec,
        EvalStats,
        write_eval_log,
    )
    from inspect_ai.model import GenerateConfig, ModelUsage

    judge = header["judge_model"] or header["judge"]
    # How the judge was asked (an engine run's options; an import has none).
    config = GenerateConfig(
        temperature=header.get("temperature"),
        seed=header.get("seed"),
        max_tokens=header.get("max_tokens"),
    )
    samples = [_sample(line, judge=judge, config=config) for line in lines]
    dataset = f"{header['dataset']} v{header['dataset_version']}"
    metrics = {"overall": model.overall, **model.categories}
    usage = {}
    if header["source"] == "engine":
        usage[judge] = ModelUsage(
            input_tokens=header["tokens_in"],
            output_tokens=header["tokens_out"],
            total_tokens=header["tokens_in"] + header["tokens_out"],
            total_cost=header["cost"],
        )
    log = EvalLog(
        status=STATUS[header["status"]],
        eval=EvalSpec(
            created=header["created_at"],
            task=f"{TASK} judge {header['judge']} on {dataset}",
            task_id=f"run-{header['id']}",
            run_id=f"run-{header['id']}",
            model=header["model"],
            dataset=EvalDataset(
                name=header["dataset"], version=header["dataset_version"], samples=len(samples)
            ),
            config=EvalConfig(),
            model_generate_config=config,
            metadata={"judge_run": header},
        ),
        results=EvalResults(
            total_samples=len(samples),
            completed_samples=sum(1 for s in samples if "question_score" in s.scores),
            scores=[
                EvalScore(
                    name="question_score",
                    scorer=TASK,
                    metrics={
                        name: EvalMetric(name=name, value=value)
                        for name, value in metrics.items()
                        if value is not None
                    },
                    metadata={"scored": model.scored, "total": model.total},
                )
            ],
        ),
        stats=EvalStats(
            started_at=header["created_at"],
            completed_at=header["finished_at"] or header["created_at"],
            model_usage=usage,
        ),
        samples=samples,
    )
    fmt = "json" if Path(path).suffix == ".json" else "eval"
    file_produce_atomically(path=path, produce=lambda partial: write_eval_log(log, partial, fmt))
