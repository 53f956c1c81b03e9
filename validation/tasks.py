from celery import shared_task

# The project's Celery app, the default in every thread, before any task here is used.
import config.celery  # noqa: F401
from validation import selectors, services


@shared_task(bind=True, max_retries=3, default_retry_delay=5)
def unit_gold_compute(self, *, unit_id: int) -> dict[str, int]:
    """Write the gold labels of a unit that just got its last submission (idempotent)."""
    study = selectors.study_for_unit(unit_id=unit_id)
    if study is None:
        return {}
    try:
        return services.study_compute_gold(study=study, unit_ids=[unit_id])
    except Exception as exc:  # a database hiccup: retry a bounded number of times
        raise self.retry(exc=exc) from exc
