import logging

from celery import shared_task
from celery.signals import worker_ready
from django.conf import settings
from django.db import connection

# The project's Celery app, the default in every thread, before any task here is used.
import config.celery  # noqa: F401
from validation.services.stored import figures_after_deploy_warm, study_figures_warm

logger = logging.getLogger(__name__)


@shared_task(acks_late=True)
def study_figures_warm_task(*, study_id: int) -> list[str]:
    """A closed study's report and badges computed and stored ahead of their first reader
    (``benchmark.services.warming``); the kinds kept."""
    return study_figures_warm(study_id=study_id)


@worker_ready.connect(weak=False)
def figures_after_deploy(sender, **kwargs) -> None:
    """A worker serving the queue of reports, ready on code that changed the figures, has the
    ones people read computed again ahead of them (``figures_after_deploy_warm``)."""
    queue = settings.CELERY_TASK_ROUTES["validation.tasks.*"]["queue"]
    if queue not in sender.app.amqp.queues.consume_from:
        return
    try:
        queued = figures_after_deploy_warm()
    finally:
        connection.close()  # the worker's main process runs no task: it keeps no connection
    if queued is not None:
        logger.info("new code: figures of %d closed studies and %d boards queued", *queued)
