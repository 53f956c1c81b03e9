"""Asking the judge again where a run ended in errors (the dashboard's action on such a run)."""

from django.db import transaction
from django.utils.translation import gettext

from benchmark.audit_actions import BenchmarkAction
from benchmark.models import Dataset, Judge, JudgeRun, ModelUnderTest
from benchmark.selectors import runs as run_selectors
from benchmark.services.audit import audit_record
from benchmark.services.judging import judge_run_queue
from benchmark.services.llm_jobs import (
    LLMJobConfigError,
    NothingToRetry,
    RunOptions,
    run_options_of,
)

GOING = (JudgeRun.Status.PENDING, JudgeRun.Status.RUNNING)


def judge_run_retry_errors(*, run: JudgeRun, actor) -> JudgeRun:
    """Queue a new run of ``run``'s judge, model, dataset and options for a worker; return it.

    As ``judge_run_retry_create``; also refused for a judge without an endpoint URL (a worker
    has no ``--base-url``).
    """
    with transaction.atomic():
        retry = judge_run_retry_create(run=run, actor=actor)
        if not retry.judge.base_url:
            raise LLMJobConfigError(
                gettext("Judge %(judge)s has no endpoint URL.") % {"judge": retry.judge.name}
            )
        judge_run_queue(run_id=retry.pk)
    return retry


def judge_run_retry_errors_start(
    *, judge: Judge, model: ModelUnderTest, dataset: Dataset, granularity: str, options: RunOptions
) -> JudgeRun:
    """The command line's ``--retry-errors``: a new run, pending, of the newest run of this
    judge, model, dataset, granularity and options (``judge_run_retry_create``)."""
    newest = run_selectors.judge_run_newest(
        judge_id=judge.pk,
        model_id=model.pk,
        dataset_id=dataset.pk,
        granularity=granularity,
        **options.fields(),
    )
    if newest is None:
        raise LLMJobConfigError(
            f"judge {judge.name!r} has no run of {model.name!r} with these options to retry"
        )
    return judge_run_retry_create(run=newest, actor=None)


def judge_run_retry_create(*, run: JudgeRun, actor) -> JudgeRun:
    """A new run of ``run``'s judge, model, dataset and options, pending; return it.

    Verdicts are never edited, so the failed run stays as it was and the new one, being the
    latest, is what the leaderboard and reports read once it finishes. The new run judges
    every criterion, but the judge's usable replies are in the reply cache (unusable ones never
    are), so only the prompts that ended in error reach the endpoint again. Refused (with
    ``LLMJobConfigError``) for imported verdicts, a run still going, a run without errors and a
    run that a newer one already replaced. The dashboard queues it (``judge_run_retry_errors``);
    the command line runs it in process.
    """
    with transaction.atomic():
        run = (
            JudgeRun.objects.select_for_update(of=("self",)).select_related("judge").get(pk=run.pk)
        )
        if run.source != "engine":
            raise LLMJobConfigError(
                gettext("Run %(run)s holds imported verdicts: import them again instead.")
                % {"run": run.pk}
            )
        if run.status in GOING:
            raise LLMJobConfigError(
                gettext("Run %(run)s is still going: wait until it ends.") % {"run": run.pk}
            )
        _done, errors = run_selectors.verdict_counts(run_ids=[run.pk]).get(run.pk, (0, 0))
        if not errors:
            raise NothingToRetry(
                gettext("Run %(run)s has no errors.") % {"run": run.pk}, run_id=run.pk
            )
        newer = run_selectors.judge_run_successors(run_ids=[run.pk]).get(run.pk)
        if newer is not None:
            raise LLMJobConfigError(
                gettext("Run %(newer)s already replaced run %(run)s.")
                % {"newer": newer, "run": run.pk}
            )
        retry = JudgeRun.objects.create(
            judge=run.judge,
            model_id=run.model_id,
            dataset_id=run.dataset_id,
            status=JudgeRun.Status.PENDING,
            source="engine",
            granularity=run.granularity,
            template=run.template,
            retry_of=run,
            **run_options_of(run).fields(),
        )
        audit_record(
            actor=actor,
            action=BenchmarkAction.JUDGE_RUN_RETRY_ERRORS,
            obj=retry,
            data={"retry_of": run.pk, "errors": errors},
        )
    return retry
