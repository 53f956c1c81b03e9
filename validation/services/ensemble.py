"""Declaring an ensemble judge (the majority of several judges, or of one judge's repeats) and
letting a study validate it like any judge."""

from collections import defaultdict

from django.db import transaction

from benchmark.models import Dataset, JudgeRun
from benchmark.selectors.run_lists import judge_runs_of_judges
from benchmark.selectors.runs import judge_repeat_runs, run_verdict_states, runs_latest
from benchmark.services.audit import audit_record
from benchmark.services.ensemble import (
    EnsembleError,
    judge_ensemble_resolve,
    judge_ensemble_run_store,
)
from validation.audit_actions import ValidationAction
from validation.ensemble import ensemble_verdict
from validation.models import Study


def _member_sets(
    *, dataset: Dataset, members: list[str] | None, repeats_of: str | None
) -> list[tuple[list[str], list[JudgeRun]]]:
    """Per model, the voters' names and their runs: each member's run that leaderboards read,
    or the judge's run 0 with its repeats."""
    names = members or [repeats_of]
    latest = runs_latest(judge_runs_of_judges(dataset=dataset, names=names))
    by_model: dict[int, dict[str, JudgeRun]] = defaultdict(dict)
    for run in latest:
        by_model[run.model_id][run.judge.name] = run
    sets = []
    for _, runs in sorted(by_model.items()):
        if members:
            if len(runs) == len(members):
                sets.append((list(members), [runs[name] for name in members]))
            continue
        repeats = judge_repeat_runs(run=runs[repeats_of])
        if len(repeats) > 1:
            sets.append(([f"{repeats_of}#{r.repeat_index}" for r in repeats], repeats))
    return sets


def judge_ensemble_create(
    *,
    name: str,
    dataset: Dataset,
    members: list[str] | None = None,
    repeats_of: str | None = None,
    actor=None,
) -> list[JudgeRun]:
    """Store the ensemble judge ``name`` on ``dataset``: one finished run per model, each
    criterion's verdict the majority of the members' (``validation.ensemble``).

    ``members``: at least two other judges, each with a run on the model (a model some member
    has not judged is left out); ``repeats_of``: a judge's run 0 and its repeats
    (``judge --repeats``). Asked again, it stores new runs from the members' current ones.
    Raises ``EnsembleError`` (nothing written) when there is nothing to take a majority of.
    """
    if bool(members) == bool(repeats_of):
        raise EnsembleError("give either --members J1,J2,... or --repeats-of J")
    if members is not None:
        members = list(dict.fromkeys(members))
        if len(members) < 2:
            raise EnsembleError("an ensemble needs at least two distinct members")
    if name in (members or [repeats_of]):
        raise EnsembleError(f"the ensemble {name!r} cannot be its own member")
    definition = {"members": members} if members else {"repeats_of": repeats_of}
    sets = _member_sets(dataset=dataset, members=members, repeats_of=repeats_of)
    if not sets:
        wanted = (
            f"every member ({', '.join(members)}) has judged"
            if members
            else f"judge {repeats_of!r} has repeats (judge --repeats N)"
        )
        raise EnsembleError(f"no model of {dataset} that {wanted}")
    stored = []
    with transaction.atomic():
        judge = judge_ensemble_resolve(name=name, definition=definition)
        for voters, runs in sets:
            states = run_verdict_states(run_ids=[r.pk for r in runs])
            keys = sorted({key for run in runs for key in states[run.pk]})
            verdicts = []
            for key in keys:
                votes = [states[run.pk].get(key) for run in runs]
                state, reasoning = ensemble_verdict(
                    members=voters, states=[v[0] if v else None for v in votes]
                )
                # The newest criterion text any member was shown (members judged it at
                # different times; a rubric edit in between shows in the report's notes).
                version = max(v[1] for v in votes if v)
                verdicts.append((*key, state, version, reasoning))
            stored.append(
                judge_ensemble_run_store(
                    judge=judge,
                    model=runs[0].model,
                    dataset=dataset,
                    member_runs=[r.pk for r in runs],
                    verdicts=verdicts,
                    actor=actor,
                )
            )
    return stored


def study_judge_runs_add(*, study: Study, runs: list[JudgeRun], actor=None) -> None:
    """Let ``study`` validate these runs too (its report reads them like its other judges')."""
    with transaction.atomic():
        study.judge_runs.add(*runs)
        audit_record(
            actor=actor,
            action=ValidationAction.STUDY_JUDGES_ADD,
            obj=study,
            data={"judge_runs": [r.pk for r in runs]},
        )
