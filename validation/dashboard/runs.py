"""Judge and generation runs for the dashboard: progress, errors, requests and cost."""

from django.utils import timezone
from django.utils.formats import date_format

from benchmark.models import JudgeRun
from benchmark.selectors import run_lists
from benchmark.selectors.responses import criteria_to_judge
from benchmark.selectors.runs import verdict_counts_of
from validation.dashboard import rules
from validation.dashboard.selectors import status_label
from validation.models import Study

RECENT_RUNS = 20


def judge_run_get_for_admin(*, run_id: int) -> JudgeRun | None:
    return run_lists.judge_run_find(run_id=run_id)


def judge_runs_recent(*, limit: int = RECENT_RUNS) -> list[JudgeRun]:
    """Runs still going first, then the most recent ones."""
    return run_lists.judge_runs_recent(limit=limit)


def judge_runs_for_study(*, study: Study) -> list[JudgeRun]:
    return list(study.judge_runs.select_related("judge", "model", "dataset"))


def _share(done: int, total: int) -> float | None:
    return done / total if total else None


def runs_live(*, limit: int = RECENT_RUNS) -> dict:
    """Judge and generation runs with their progress, errors, requests and cost (JSON-ready).

    A judge run's done and error counts come from its verdicts as they are written; totals,
    requests and cost from what its engine checkpoints.
    """
    judge_runs = judge_runs_recent(limit=limit)
    counts = verdict_counts_of(runs=judge_runs)
    totals = criteria_to_judge(
        model_ids={r.model_id for r in judge_runs},
        dataset_ids={r.dataset_id for r in judge_runs},
    )
    judge = []
    for run in judge_runs:
        done, errors = counts.get(run.pk, (0, 0))
        total = run.total or totals.get((run.model_id, run.dataset_id), 0)
        judge.append(
            {
                "id": run.pk,
                "judge": run.judge.name,
                "model": run.model.name,
                "dataset": f"{run.dataset.name} v{run.dataset.version}",
                "status": run.status,
                "status_label": status_label(run.status),
                "source": run.source,
                "total": total,
                "done": done,
                "errors": errors,
                "progress": _share(done, total),
                "error_share": _share(errors, done),
                "alert": rules.run_error_share(done=done, errors=errors).alert,
                "requests": run.calls,
                "cached": run.cached,
                "cost": run.cost,
                "created_at": run.created_at.isoformat(),
                "finished_at": run.finished_at.isoformat() if run.finished_at else None,
            }
        )
    generation = []
    for run in run_lists.generation_runs_recent(limit=limit):
        total, done = run.total, run.done
        generation.append(
            {
                "id": run.pk,
                "model": run.model.name,
                "dataset": f"{run.dataset.name} v{run.dataset.version}",
                "mode": run.mode,
                "mode_label": status_label(run.mode),
                "status": run.status,
                "status_label": status_label(run.status),
                "total": total,
                "done": done,
                "errors": run.errors,
                "progress": _share(done, total),
                "requests": run.calls,
                "cost": run.cost,
                "error": run.error,
                "created_at": run.created_at.isoformat(),
                "finished_at": run.finished_at.isoformat() if run.finished_at else None,
            }
        )
    now = timezone.now()
    return {
        "judge_runs": judge,
        "generation_runs": generation,
        "at": now.isoformat(),
        # What the page shows: the platform's time zone, to the minute, like every other page.
        "at_label": date_format(timezone.localtime(now), "Y-m-d H:i"),
    }
