"""What benchmark tells others of a judge or generation run that ended: webhook endpoints,
and the workers that keep the leaderboard (``benchmark.services.warming``)."""

from django.urls import reverse

from benchmark.models import GenerationRun, JudgeRun, LLMRun
from benchmark.services.warming import leaderboard_warm_later
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
# A judge run that ended with verdicts changes its dataset's board.
BOARD_CHANGED = (LLMRun.Status.FINISHED, LLMRun.Status.STOPPED)


def run_ended(*, run: LLMRun) -> None:
    """Announce a run that finished, stopped (budget, endpoint down, interrupted) or could
    not start, with its counts and cost; a pending or running one is not announced. Never
    its endpoint's settings or error text, which may hold a key. A judge run's board is
    computed again ahead of its first reader."""
    event = ENDED.get((type(run), run.status))
    if event is None:
        return
    if isinstance(run, JudgeRun) and run.status in BOARD_CHANGED:
        leaderboard_warm_later(dataset_id=run.dataset_id)

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
