"""Storing an ensemble judge: a judge whose verdicts are derived from other judges' runs (the
majority rule is validation's, ``validation.ensemble``), kept as an ordinary judge with
finished runs of source ``ensemble`` so that leaderboards, studies and reports read it like
any judge."""

from django.db import transaction
from django.utils import timezone

from benchmark.audit_actions import BenchmarkAction
from benchmark.models import Dataset, Judge, JudgeRun, ModelUnderTest, Verdict
from benchmark.services.announce import run_ended
from benchmark.services.audit import audit_record

ENSEMBLE = "ensemble"  # JudgeRun.source of its runs, the key of its Judge.parameters


class EnsembleError(ValueError):
    """The ensemble as asked for cannot be made; the message says why."""


def judge_ensemble_resolve(*, name: str, definition: dict) -> Judge:
    """The ensemble judge ``name`` with ``definition`` (its members or the judge whose repeats
    it takes), created if new; a judge of that name defined otherwise is refused."""
    with transaction.atomic():
        judge, created = Judge.objects.select_for_update().get_or_create(
            name=name, defaults={"parameters": {ENSEMBLE: definition}}
        )
    if not created and judge.parameters.get(ENSEMBLE) != definition:
        raise EnsembleError(
            f"judge {name!r} exists and is not this ensemble "
            f"({judge.parameters.get(ENSEMBLE) or 'an LLM judge'}); pick another name"
        )
    return judge


def judge_ensemble_run_store(
    *,
    judge: Judge,
    model: ModelUnderTest,
    dataset: Dataset,
    member_runs: list[int],
    verdicts: list[tuple[int, int, str, int, str]],
    actor=None,
) -> JudgeRun:
    """A finished run of the ensemble ``judge`` with ``verdicts`` (response id, rubric item
    id, state, criterion version, reasoning), derived from ``member_runs``; audited and
    announced as any judge run that finished (``run_ended``)."""
    now = timezone.now()
    errors = sum(1 for v in verdicts if v[2] == Verdict.State.ERROR)
    with transaction.atomic():
        run = JudgeRun.objects.create(
            judge=judge,
            model=model,
            dataset=dataset,
            source=ENSEMBLE,
            status=JudgeRun.Status.FINISHED,
            finished_at=now,
            total=len(verdicts),
            done=len(verdicts),
            errors=errors,
            import_summary={"member_runs": member_runs, "errors": errors},
        )
        Verdict.objects.bulk_create(
            Verdict(
                run=run,
                response_id=response_id,
                rubric_item_id=item_id,
                state=state,
                rubric_version=version,
                reasoning=reasoning,
            )
            for response_id, item_id, state, version, reasoning in verdicts
        )
        audit_record(
            actor=actor,
            action=BenchmarkAction.JUDGE_RUN_ENSEMBLE,
            obj=run,
            data={"judge": judge.name, "member_runs": member_runs, "verdicts": len(verdicts)},
        )
        run_ended(run=run)
    return run
