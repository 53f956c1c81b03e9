"""Absolute standards: the service's versions and refusals, the seniors' pages, the admin."""

import pytest
from django.test import Client

from benchmark.models import AbsoluteStandard, AbsoluteStandardVersion, AuditEvent
from benchmark.services.standards import StandardError, standard_write
from tests.builders.accounts import ExpertFactory, UserFactory

pytestmark = pytest.mark.django_db


def client_for(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def senior():
    return ExpertFactory(tier="senior", user=UserFactory(username="senior-li"))


def test_the_first_text_and_each_revision_are_numbered_versions_with_audit_rows(senior):
    first = standard_write(
        ability="warmth", text="Warm, specific acknowledgement.", author=senior.user
    )
    second = standard_write(
        ability="warmth", text="Warm acknowledgement of the user's words.", author=senior.user,
        reason="too vague",
    )  # fmt: skip
    assert (first.number, second.number) == (1, 2)
    standard = AbsoluteStandard.objects.get(ability="warmth")
    assert standard.version == 2 and standard.text == "Warm acknowledgement of the user's words."
    assert list(standard.versions.values_list("number", "reason")) == [(1, ""), (2, "too vague")]
    events = AuditEvent.objects.filter(action="absolute_standard.edit").order_by("id")
    assert [e.data["version"] for e in events] == [1, 2]
    assert events[1].data["text_before"] == "Warm, specific acknowledgement."
    assert events[1].object_id == str(standard.pk)


@pytest.mark.parametrize(
    ("ability", "text", "reason", "message"),
    [
        ("courage", "x", "", "Unknown ability."),
        ("catastrophic", "x", "", "Unknown ability."),
        ("warmth", "   ", "", "must not be empty"),
        ("warmth", "First text.", "", "Give a reason"),
        ("warmth", "First text.", "again", "Nothing changed"),
    ],
)
def test_refused_changes_write_nothing(senior, ability, text, reason, message):
    standard_write(ability="warmth", text="First text.", author=senior.user)
    before = (AbsoluteStandardVersion.objects.count(), AuditEvent.objects.count())
    with pytest.raises(StandardError, match=message):
        standard_write(ability=ability, text=text, author=senior.user, reason=reason)
    assert (AbsoluteStandardVersion.objects.count(), AuditEvent.objects.count()) == before


def test_a_standard_needs_an_author():
    with pytest.raises(StandardError, match="author"):
        standard_write(ability="warmth", text="x", author=None)


def test_a_senior_writes_then_revises_on_the_page_and_sees_the_history(senior):
    client = client_for(senior.user)
    listing = client.get("/standards/").content.decode()
    assert "0 of 15 abilities have a standard." in listing and "/standards/warmth/" in listing
    response = client.post("/standards/warmth/", {"text": "Line one.\r\nLine two.", "reason": ""})
    assert response.status_code == 302 and response["Location"] == "/standards/warmth/"
    assert AbsoluteStandard.objects.get(ability="warmth").text == "Line one.\nLine two."
    refused = client.post("/standards/warmth/", {"text": "Line one, changed.", "reason": ""})
    assert (
        refused.status_code == 400 and "Give a reason for the change." in refused.content.decode()
    )
    client.post("/standards/warmth/", {"text": "Line one, changed.", "reason": "clearer"})
    page = client.get("/standards/warmth/").content.decode()
    assert "v2" in page and "clearer" in page and "senior-li" in page and "Line two." in page
    assert "1 of 15 abilities has a standard." in client.get("/standards/").content.decode()


def test_other_experts_are_refused_and_an_unknown_ability_is_not_found(senior):
    rater = client_for(ExpertFactory().user)
    for url in ("/standards/", "/standards/warmth/"):
        response = rater.get(url)
        assert response.status_code == 403
        assert "Only senior experts write the absolute standards." in response.content.decode()
    assert rater.post("/standards/warmth/", {"text": "x"}).status_code == 403
    assert not AbsoluteStandard.objects.exists()
    assert client_for(senior.user).get("/standards/courage/").status_code == 404


def test_the_nav_links_seniors_only_to_the_standards(senior):
    assert 'href="/standards/"' in client_for(senior.user).get("/profile/").content.decode()
    rater = ExpertFactory()
    assert 'href="/standards/"' not in client_for(rater.user).get("/profile/").content.decode()


def test_the_admin_writes_versions_through_the_service():
    admin = UserFactory(username="boss", is_staff=True, is_superuser=True)
    client = client_for(admin)
    added = client.post(
        "/admin/benchmark/absolutestandard/add/",
        {"ability": "curiosity", "text": "Open questions.", "reason": "",
         "versions-TOTAL_FORMS": 0, "versions-INITIAL_FORMS": 0},
    )  # fmt: skip
    assert added.status_code == 302, added.content.decode()[:2000]
    standard = AbsoluteStandard.objects.get(ability="curiosity")
    url = f"/admin/benchmark/absolutestandard/{standard.pk}/change/"
    first = standard.versions.get()
    management = {"versions-TOTAL_FORMS": 1, "versions-INITIAL_FORMS": 1,
                  "versions-0-id": first.pk, "versions-0-standard": standard.pk}  # fmt: skip
    no_reason = client.post(url, {"text": "Open questions, then.", "reason": "", **management})
    assert (
        no_reason.status_code == 200
        and "Give a reason for the change." in no_reason.content.decode()
    )
    revised = client.post(url, {"text": "Open questions, then.", "reason": "sharper", **management})
    assert revised.status_code == 302, revised.context["errors"] if revised.context else revised
    standard.refresh_from_db()
    assert standard.version == 2
    assert list(standard.versions.values_list("number", "author__username")) == [
        (1, "boss"), (2, "boss"),
    ]  # fmt: skip
