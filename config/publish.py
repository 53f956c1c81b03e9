"""Publishing a task to the broker, the one way every app does it (runs, figures computed
ahead, webhook deliveries): a broker blip is retried briefly, and a broker that cannot be
reached is returned to the caller, who decides what waits for it. Celery and kombu load with
the first task published."""

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from celery import Task

# A blip is retried briefly; a real outage must not hold the request that published.
PUBLISH_RETRY = {"max_retries": 2, "interval_start": 0, "interval_step": 0.5, "interval_max": 1}


def task_publish(task: "Task", *, kwargs: dict, countdown: float = 0) -> Exception | None:
    """Publish ``task(**kwargs)`` to run in ``countdown`` seconds (``PUBLISH_RETRY``); the
    broker's error when it cannot be reached, else None."""
    from kombu.exceptions import OperationalError

    try:
        task.apply_async(kwargs=kwargs, countdown=countdown, retry_policy=PUBLISH_RETRY)
    except OperationalError as exc:
        return exc
    return None
