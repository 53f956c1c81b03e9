"""Announcing events to webhook endpoints and sending the deliveries."""

import logging
import time
import uuid
from collections.abc import Callable
from datetime import timedelta

import httpx
from django.conf import settings
from django.core.cache import cache
from django.db import transaction
from django.utils import timezone

from webhooks.dispatch import delivery_queue
from webhooks.events import Event
from webhooks.models import Delivery, Endpoint
from webhooks.protocol import SIGNATURE_HEADER, body_encode, retry_delay, signature

logger = logging.getLogger(__name__)


def announce(*, event: Event, build: Callable[[], tuple[dict, dict[str, str]] | None]) -> None:
    """Deliver ``event`` to every active endpoint subscribed to it once the caller commits.

    ``build()`` returns the event's ``data`` (ids and names; never a user name, an e-mail or a
    key: a rater appears by pseudonym at most) and ``links`` (site paths, made absolute with
    ``HEARTBENCH_BASE_URL``), or None when there is nothing to announce after all. It is called
    only when an endpoint listens, so an expert's submit with no endpoint pays one small query,
    not the payload's (none, while the list of endpoints is cached). Robust: nothing here can fail
    the caller's request or make it wait for a receiver.
    """
    endpoint_ids = [pk for pk, events in endpoints_listening() if event in events]
    if not endpoint_ids:
        return
    built = build()
    if built is None:
        return
    data, links = built
    payload = {
        "id": str(uuid.uuid4()),
        "event": Event(event).value,
        "created": timezone.now().isoformat(),
        "data": data,
        "links": {name: link_absolute(path) for name, path in links.items()},
    }
    transaction.on_commit(
        lambda: deliveries_create(endpoint_ids=endpoint_ids, payload=payload), robust=True
    )


# Every expert's last rating on a unit asks who listens, and endpoints change rarely: the list
# is cached (shared by the server's processes), forgotten on every save or delete of an
# endpoint (``endpoints_forget``) and after a minute at most, for a change made past the ORM.
ENDPOINTS_KEY = "webhooks:endpoints-listening"
ENDPOINTS_SECONDS = 60


def endpoints_listening() -> list[tuple[int, list[str]]]:
    """(id, events) of every active endpoint."""
    found = cache.get(ENDPOINTS_KEY)
    if found is None:
        found = list(Endpoint.objects.filter(active=True).values_list("pk", "events"))
        cache.set(ENDPOINTS_KEY, found, timeout=ENDPOINTS_SECONDS)
    return found


def endpoints_forget(**_) -> None:
    """Drop the cached list (a signal receiver: an endpoint was saved or deleted)."""
    cache.delete(ENDPOINTS_KEY)


def link_absolute(path: str) -> str:
    """A site path as an absolute URL, or the path when no base URL is configured."""
    return settings.HEARTBENCH_BASE_URL.rstrip("/") + path


def deliveries_create(*, endpoint_ids: list[int], payload: dict) -> None:
    """Record the event's delivery to each of these endpoints and queue them."""
    with transaction.atomic():
        created = Delivery.objects.bulk_create(
            Delivery(
                endpoint_id=endpoint_id,
                event=payload["event"],
                event_id=payload["id"],
                payload=payload,
                next_try=timezone.now(),
            )
            for endpoint_id in endpoint_ids
        )
    for delivery in created:
        delivery_queue(delivery_id=delivery.pk)


def delivery_send(*, delivery_id: int, replay: bool = False) -> bool:
    """Make one attempt, log it on the delivery, and queue the next try after a failure.

    Only a ``replay`` sends a delivery already delivered (a stale retry after a successful
    "send again" is dropped) or one to an endpoint made inactive since (its retries stop).
    Tries stop after ``HEARTBENCH_WEBHOOK_ATTEMPTS`` attempts; a replay past them is a single
    attempt. True when the receiver took it.
    """
    delivery = Delivery.objects.select_related("endpoint").filter(pk=delivery_id).first()
    if delivery is None:
        return False
    if not replay and (delivery.delivered_at or not delivery.endpoint.active):
        return False
    status, error, seconds = _post(delivery)
    now = timezone.now()
    with transaction.atomic():
        delivery = Delivery.objects.select_for_update().get(pk=delivery_id)
        delivery.attempts += 1
        delivery.last_status, delivery.last_error = status, error
        delivery.history.append(
            {"at": now.isoformat(), "status": status, "error": error, "seconds": seconds}
        )
        delay = None
        if not error:
            delivery.delivered_at = now
        else:
            delay = retry_delay(
                attempts=delivery.attempts,
                max_attempts=settings.HEARTBENCH_WEBHOOK_ATTEMPTS,
                base_seconds=settings.HEARTBENCH_WEBHOOK_BACKOFF_SECONDS,
            )
        delivery.next_try = None if delay is None else now + timedelta(seconds=delay)
        delivery.save()
    logger.log(
        logging.INFO if not error else logging.WARNING,
        "webhook %s %s to %s, attempt %s: %s",
        delivery.event,
        delivery.event_id,
        delivery.endpoint.url,
        delivery.attempts,
        error or status,
    )
    if delay is not None:
        delivery_queue(delivery_id=delivery_id, countdown=delay)
    return not error


def deliveries_replay(*, delivery_ids: list[int]) -> int:
    """Send these deliveries again now (the admin's "send again"); how many were queued."""
    ids = list(Delivery.objects.filter(pk__in=delivery_ids).values_list("pk", flat=True))
    with transaction.atomic():
        Delivery.objects.filter(pk__in=ids).update(next_try=timezone.now())
    for delivery_id in ids:
        delivery_queue(delivery_id=delivery_id, replay=True)
    return len(ids)


def _post(delivery: Delivery) -> tuple[int | None, str, float]:
    """POST the signed body once: the status code, an error ("" for a 2xx), the seconds taken."""
    body = body_encode(delivery.payload)
    headers = {
        "Content-Type": "application/json",
        "User-Agent": "HeartBench-Webhooks/1",
        "HeartBench-Event": delivery.event,
        "HeartBench-Delivery": str(delivery.pk),
        SIGNATURE_HEADER: signature(
            secret=delivery.endpoint.secret, timestamp=int(time.time()), body=body
        ),
    }
    started = time.monotonic()
    try:
        response = httpx.post(
            delivery.endpoint.url,
            content=body,
            headers=headers,
            timeout=settings.HEARTBENCH_WEBHOOK_TIMEOUT,
        )
    except httpx.HTTPError as exc:
        return None, f"{type(exc).__name__}: {exc}"[:500], round(time.monotonic() - started, 3)
    seconds = round(time.monotonic() - started, 3)
    if 200 <= response.status_code < 300:
        return response.status_code, "", seconds
    return response.status_code, f"HTTP {response.status_code}", seconds
