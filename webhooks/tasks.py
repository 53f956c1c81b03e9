from celery import shared_task

# The project's Celery app, the default in every thread, before any task here is used.
import config.celery  # noqa: F401
from webhooks import services


@shared_task(acks_late=True)
def webhook_deliver(*, delivery_id: int, replay: bool = False) -> bool:
    """One attempt at a delivery; the service queues the next try itself (bounded, backing
    off), the same way with a broker and in process. True when the receiver took it."""
    return services.delivery_send(delivery_id=delivery_id, replay=replay)
