from celery import shared_task

# The project's Celery app, the default in every thread, before any task here is used.
import config.celery  # noqa: F401
from validation import services
from validation.services.stored import study_figures_warm


@shared_task(bind=True, max_retries=3, default_retry_delay=5)
def unit_gold_compute(self, *, unit_id: int) -> str:
    """Settle a unit after the commit of its last submission (idempotent): this is where a
    senior's decision becomes gold. Returns the outcome's name ("" for none)."""
    try:
        outcome = services.unit_settle(unit_id=unit_id)
    except Exception as exc:  # a database hiccup: retry a bounded number of times
        raise self.retry(exc=exc) from exc
    return type(outcome).__name__ if outcome is not None else ""


@shared_task(acks_late=True)
def study_figures_warm_task(*, study_id: int) -> list[str]:
    """A closed study's report and badges computed and stored ahead of their first reader
    (``benchmark.services.warming``); the kinds kept."""
    return study_figures_warm(study_id=study_id)
