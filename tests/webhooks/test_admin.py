"""The endpoint admin: the secret is written, never shown again."""

import pytest

from webhooks.models import Endpoint

pytestmark = pytest.mark.django_db
ADD = "/admin/webhooks/endpoint/add/"
SECRET = "a-receiver-secret-nobody-sees-again"


def form(**fields) -> dict:
    return {"name": "crm", "url": "https://crm.example.org/hooks", "events": ["study.closed"],
            "active": "on", "secret": SECRET, **fields}  # fmt: skip


def test_the_secret_is_set_once_and_never_rendered(admin_client):
    page = admin_client.post(ADD, form(secret="short"))
    assert page.status_code == 200 and "at least 16 characters" in page.content.decode()
    assert admin_client.post(ADD, form()).status_code == 302
    endpoint = Endpoint.objects.get()
    assert endpoint.secret == SECRET and endpoint.events == ["study.closed"]
    change = f"/admin/webhooks/endpoint/{endpoint.pk}/change/"
    for url in (change, "/admin/webhooks/endpoint/"):
        assert SECRET not in admin_client.get(url).content.decode()
    # Empty keeps the secret; a new one replaces it.
    assert admin_client.post(change, form(secret="", name="crm2")).status_code == 302
    endpoint.refresh_from_db()
    assert endpoint.name == "crm2" and endpoint.secret == SECRET
    admin_client.post(change, form(secret="another-secret-of-twenty"))
    endpoint.refresh_from_db()
    assert endpoint.secret == "another-secret-of-twenty"


def test_only_http_urls_and_known_events(admin_client):
    page = admin_client.post(ADD, form(url="ftp://crm.example.org/", events=["nope"]))
    assert page.status_code == 200 and not Endpoint.objects.exists()
    errors = page.context["adminform"].form.errors
    assert set(errors) == {"url", "events"}


def test_deliveries_are_a_read_only_log(admin_client):
    assert admin_client.get("/admin/webhooks/delivery/add/").status_code == 403
