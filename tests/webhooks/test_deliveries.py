"""Deliveries against a real local receiver: signed, after the commit, retried with back-off,
bounded, logged, and sent again from the admin."""

import logging
import threading
from datetime import datetime
from itertools import pairwise

import pytest
from django.db import transaction

from tests.builders.webhook_receiver import Receiver, free_port
from tests.builders.webhooks import SECRET, endpoint_for, sender_paused, sent
from webhooks.events import Event
from webhooks.models import Delivery
from webhooks.services import announce, delivery_send, endpoints_listening

pytestmark = pytest.mark.django_db(transaction=True)


def opened(name: str = "pilot") -> None:
    announce(
        event=Event.STUDY_OPENED,
        build=lambda: (
            {"study": name, "study_id": 7},
            {"dashboard": f"/admin/dashboard/studies/{name}/"},
        ),
    )


def test_an_event_is_delivered_signed_once_the_transaction_commits(receivers):
    receiver = receivers()
    endpoint_for(receiver, name="subscribed", events=[Event.STUDY_OPENED])
    endpoint_for(receiver, name="other event", events=[Event.GOLD_READY])
    endpoint_for(receiver, name="inactive", active=False)
    with transaction.atomic():
        opened()
        assert Delivery.objects.count() == 0  # nothing before the commit
    sent()
    [request] = receiver.requests
    assert request["signed"]
    assert request["headers"]["HeartBench-Event"] == "study.opened"
    payload = request["payload"]
    assert set(payload) == {"id", "event", "created", "data", "links"}
    assert payload["event"] == "study.opened" and payload["data"]["study"] == "pilot"
    assert payload["links"] == {
        "dashboard": "https://heartbench.example.org/admin/dashboard/studies/pilot/"
    }
    delivery = Delivery.objects.get()
    assert str(delivery.event_id) == payload["id"]
    assert (delivery.attempts, delivery.last_status, delivery.last_error) == (1, 200, "")
    assert delivery.delivered_at is not None and delivery.next_try is None
    assert [a["status"] for a in delivery.history] == [200]


def test_a_rolled_back_transaction_announces_nothing(receivers):
    receiver = receivers()
    endpoint_for(receiver)
    with pytest.raises(RuntimeError), transaction.atomic():
        opened()
        raise RuntimeError
    sent()
    assert receiver.requests == [] and Delivery.objects.count() == 0


def test_a_receiver_answering_500_gets_it_again_with_back_off_until_it_takes_it(receivers):
    receiver = receivers(statuses=[500, 503])
    endpoint_for(receiver)
    opened()
    sent()
    assert len(receiver.requests) == 3 and all(r["signed"] for r in receiver.requests)
    assert len({r["payload"]["id"] for r in receiver.requests}) == 1
    delivery = Delivery.objects.get()
    assert delivery.attempts == 3 and delivery.delivered_at is not None
    assert [(a["status"], a["error"]) for a in delivery.history] == [
        (500, "HTTP 500"),
        (503, "HTTP 503"),
        (200, ""),
    ]
    at = [datetime.fromisoformat(a["at"]) for a in delivery.history]
    waits = [(later - earlier).total_seconds() for earlier, later in pairwise(at)]
    assert waits[0] >= 0.2 and waits[1] >= 0.4  # 1 x, then 2 x the back-off


def test_a_receiver_that_is_down_and_comes_back_gets_the_delivery(settings):
    settings.HEARTBENCH_WEBHOOK_BACKOFF_SECONDS = 1
    port = free_port()
    endpoint_for(f"http://127.0.0.1:{port}/hook")
    first_failure = threading.Event()

    class Watch(logging.Handler):
        def emit(self, record) -> None:
            if record.levelno >= logging.WARNING:
                first_failure.set()

    log = logging.getLogger("webhooks.services")
    watch = Watch()
    log.addHandler(watch)
    try:
        opened()
        assert first_failure.wait(10)  # refused: nothing listens on the port yet
        receiver = Receiver(secret=SECRET, port=port).start()
        sent()
    finally:
        log.removeHandler(watch)
    receiver.stop()
    delivery = Delivery.objects.get()
    assert delivery.attempts == 2 and delivery.delivered_at is not None
    refused, taken = delivery.history
    assert refused["status"] is None and refused["error"].startswith("ConnectError")
    assert taken["status"] == 200
    assert [r["signed"] for r in receiver.requests] == [True]


def test_tries_stop_after_the_configured_attempts(receivers):
    receiver = receivers(statuses=[500] * 10)
    endpoint_for(receiver)
    opened()
    sent()
    delivery = Delivery.objects.get()
    assert len(receiver.requests) == 4
    assert (delivery.attempts, delivery.last_status) == (4, 500)
    assert delivery.delivered_at is None and delivery.next_try is None


def test_send_again_from_the_admin_resends_the_same_event(receivers, admin_client):
    receiver = receivers(statuses=[500] * 4)
    endpoint_for(receiver)
    opened()
    sent()
    delivery = Delivery.objects.get()
    assert delivery.delivered_at is None and delivery.attempts == 4  # given up
    with sender_paused():
        response = admin_client.post(
            "/admin/webhooks/delivery/",
            {"action": "send_again", "_selected_action": [delivery.pk]},
            follow=True,
        )
    assert "1 delivery queued to be sent again." in response.content.decode()
    sent()
    delivery.refresh_from_db()
    assert delivery.attempts == 5 and delivery.last_status == 200 and delivery.delivered_at
    # A delivered one is sent again too, as the same event (receivers de-duplicate by its id).
    with sender_paused():
        admin_client.post(
            "/admin/webhooks/delivery/",
            {"action": "send_again", "_selected_action": [delivery.pk]},
        )
    sent()
    assert len(receiver.requests) == 6
    assert len({r["payload"]["id"] for r in receiver.requests}) == 1
    delivery.refresh_from_db()
    assert delivery.attempts == 6 and len(delivery.history) == 6


def test_an_endpoint_made_inactive_gets_no_more_retries_but_send_again_still_sends(receivers):
    receiver = receivers()
    endpoint = endpoint_for(receiver, active=False)
    delivery = Delivery.objects.create(endpoint=endpoint, event="study.opened", payload={})
    assert delivery_send(delivery_id=delivery.pk) is False
    assert receiver.requests == []
    assert delivery_send(delivery_id=delivery.pk, replay=True) is True
    assert len(receiver.requests) == 1


def test_with_no_endpoint_listening_the_payload_is_never_built(receivers):
    endpoint_for(receivers(), name="other event", events=[Event.GOLD_READY])

    def build():
        raise AssertionError("built a payload nobody listens for")

    with transaction.atomic():
        announce(event=Event.STUDY_OPENED, build=build)
    assert not Delivery.objects.exists()


def test_who_listens_is_read_once_and_read_again_when_an_endpoint_changes(
    receivers, django_assert_num_queries
):
    endpoint = endpoint_for(receivers(), events=[Event.GOLD_READY])
    announce(event=Event.STUDY_OPENED, build=lambda: None)  # reads the endpoints
    with django_assert_num_queries(0):
        announce(event=Event.STUDY_OPENED, build=lambda: None)
    endpoint.events = [Event.STUDY_OPENED]
    endpoint.save()  # an admin subscribes it: the next event reaches it at once
    opened()
    assert Delivery.objects.filter(endpoint=endpoint).count() == 1
    endpoint.delete()
    assert endpoints_listening() == []
