"""What benchmark tells webhook endpoints: a judge or generation run that ended."""

from django.urls import reverse

from benchmark.models import GenerationRun, JudgeRun, LLMRun
from webhooks.events import Event
from webhooks.services import announce

ENDED = {
    (JudgeRun, LLMRun.Status.FINISHED): Event.JUDGE_RUN_FINISHED,
    (JudgeRun, LLMRun.Status.STOPPED): Event.JUDGE_RUN_FAILED,
    (JudgeRun, LLMRun.Status.FAILED): Event.JUDGE_RUN_FAILED,
    (GenerationRun, LLMRun.Status.FINISHED): Event.GENERATION_RUN_FINISHED,
    (GenerationRun, LLMRun.Status.STOPPED): Event.GENERATION_RUN_FAILED,
    (GenerationRun, LLMRun.Status.FAILED): Event.GENERATION_RUN_FAILED,
}


def run_ended_announce(*, run: LLMRun) -> None:
    """Announce a run that finished, stopped (budget, endpoint down, interrupted) or could
    not start, with its counts and cost; a pending or running one is not announced. Never
    its endpoint's settings or error text, which may hold a key."""
    event = ENDED.get((type(run), run.status))
    if event is None:
        return

    def build() -> tuple[dict, dict[str, str]]:
        data = {
            "run": run.pk,
            "status": run.status,
            "stop_reason": run.stop_reason,
            "model": run.model.name,
            "dataset": {
                "id": run.dataset_id,
                "name": run.dataset.name,
                "version": run.dataset.version,
            },
            "total": run.total,
            "done": run.done,
            "errors": run.errors,
            "cost_usd": run.cost,
        }
        if isinstance(run, JudgeRun):
            data["judge"] = run.judge.name
        admin_page = f"admin:benchmark_{type(run)._meta.model_name}_change"
        links = {"admin": reverse(admin_page, args=[run.pk]), "runs": reverse("dashboard:runs")}
        return data, links

    announce(event=event, build=build)
