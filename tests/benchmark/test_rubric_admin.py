"""The admin edits criteria only through the versioning service and shows each history."""

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse

from benchmark.models import AuditEvent, RubricItem, RubricItemVersion
from tests.builders.datasets import RubricItemFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin_client() -> Client:
    user = get_user_model().objects.create_superuser("boss", "b@example.org", "pw-boss-123")
    client = Client(HTTP_ACCEPT_LANGUAGE="en")
    client.force_login(user)
    return client


@pytest.fixture
def item() -> RubricItem:
    return RubricItemFactory(ability="warmth", points=3, text="回应中使用温暖的语气。")


def _change(client, item, **data):
    url = reverse("admin:benchmark_rubricitem_change", args=[item.pk])
    return client.post(url, {"text": item.text, "points": item.points, "reason": "", **data})


def test_change_form_edit_makes_a_version_with_reason_and_audit(admin_client, item):
    page = admin_client.get(reverse("admin:benchmark_rubricitem_change", args=[item.pk]))
    assert page.status_code == 200
    body = page.content.decode()
    assert 'name="reason"' in body and 'name="text"' in body and 'name="points"' in body
    response = _change(admin_client, item, text="回应中使用温和的语气。\r\n", points=4,
                       reason="更准确")  # fmt: skip
    assert response.status_code == 302
    stored = RubricItem.objects.get(pk=item.pk)
    assert (stored.text, stored.points, stored.version) == ("回应中使用温和的语气。\n", 4, 2)
    latest = RubricItemVersion.objects.get(item=item, number=2)
    assert latest.author.username == "boss" and latest.reason == "更准确"
    event = AuditEvent.objects.get(action="rubric.edit")
    assert event.actor.username == "boss" and event.data["points_after"] == 4


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"text": "new", "reason": ""}, "This field is required"),
        ({"reason": "why"}, "Nothing changed"),
        ({"points": 0, "reason": "why"}, "zero"),
        ({"points": "", "reason": "why"}, "Null points"),
        ({"text": "  ", "reason": "why"}, "required"),
    ],
)
def test_refused_edits_show_the_reason_and_change_nothing(admin_client, item, data, message):
    response = _change(admin_client, item, **data)
    assert response.status_code == 200
    assert message in response.content.decode()
    assert RubricItem.objects.get(pk=item.pk).version == 1
    assert not RubricItemVersion.objects.exists()


def test_history_page_lists_versions_with_author_reason_and_diff(admin_client, item):
    _change(admin_client, item, text="回应中使用<温和>的语气。", reason="更准确")
    _change(admin_client, RubricItem.objects.get(pk=item.pk), points=5, reason="加重")
    page = admin_client.get(reverse("admin:benchmark_rubricitem_versions", args=[item.pk]))
    assert page.status_code == 200
    body = page.content.decode()
    assert "v1" in body and "v2" in body and "v3" in body and "imported" in body
    assert "更准确" in body and "加重" in body and "boss" in body
    # The diff marks the change and escapes the criterion's text.
    assert "<ins>&lt;</ins>温<del>暖</del><ins>和&gt;</ins>" in body
    assert "+3 → +5" in body


def test_no_add_or_delete_and_staff_without_permission_are_kept_out(admin_client, item):
    assert admin_client.get(reverse("admin:benchmark_rubricitem_add")).status_code == 403
    assert (
        admin_client.get(reverse("admin:benchmark_rubricitem_delete", args=[item.pk])).status_code
        == 403
    )
    staff = get_user_model().objects.create_user("clerk", password="pw-clerk-123", is_staff=True)
    client = Client()
    client.force_login(staff)
    assert (
        client.get(reverse("admin:benchmark_rubricitem_change", args=[item.pk])).status_code == 403
    )
    versions = client.get(reverse("admin:benchmark_rubricitem_versions", args=[item.pk]))
    assert versions.status_code == 403
    assert (
        client.post(
            reverse("admin:benchmark_rubricitem_change", args=[item.pk]),
            {"text": "x", "points": 3, "reason": "r"},
        ).status_code
        == 403
    )
    assert RubricItem.objects.get(pk=item.pk).version == 1


def test_audit_list_shows_rubric_edits(admin_client, item):
    _change(admin_client, item, points=2, reason="r")
    page = admin_client.get(reverse("admin:benchmark_auditevent_changelist"))
    assert "rubric.edit" in page.content.decode()


def test_changelist_shows_the_version_and_links_each_history(admin_client, item):
    _change(admin_client, item, points=2, reason="r")
    page = admin_client.get(reverse("admin:benchmark_rubricitem_changelist"))
    assert page.status_code == 200
    body = page.content.decode()
    assert reverse("admin:benchmark_rubricitem_versions", args=[item.pk]) in body
    versions = admin_client.get(reverse("admin:benchmark_rubricitemversion_changelist"))
    assert versions.status_code == 200 and "imported" in versions.content.decode()
