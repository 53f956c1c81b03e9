"""The expert API over real services: flows, token auth, permissions."""

import re

import pytest
from rest_framework.test import APIClient

from annotation.models import Submission
from tests.builders.accounts import PASSWORD, ExpertFactory, UserFactory
from tests.builders.studies import open_study

pytestmark = pytest.mark.django_db


def client_for(user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def claim(client, study="study-a"):
    return client.post(f"/api/v1/assignments/next/?study={study}")


def labels(payload, hit=True):
    return [{"criterion": c["id"], "hit": hit} for c in payload["unit"]["criteria"]]


def test_token_login_then_claim_draft_submit_and_next():
    expert = ExpertFactory()
    open_study(cases=2, experts=[expert])
    token = APIClient().post(
        "/api/v1/auth/token/", {"username": expert.user.username, "password": PASSWORD}
    )
    assert token.status_code == 200 and set(token.json()) == {"token"}
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token.json()['token']}")
    first = claim(client)
    assert first.status_code == 201
    body = first.json()
    assert {"id", "lease_expires_at", "unit"} <= set(body)
    assert set(body["unit"]) == {"token", "question_type", "dialogue", "response", "criteria"}
    assert body["unit"]["question_type"] == "rubric"
    assert {t["role"] for t in body["unit"]["dialogue"]} == {"user", "counsellor"}
    some = labels(body)[:2]
    draft = client.put(f"/api/v1/assignments/{body['id']}/draft/", {"labels": some}, format="json")
    assert draft.status_code == 200
    reload = client.get(f"/api/v1/assignments/{body['id']}/").json()
    assert reload["unit"]["criteria"] == body["unit"]["criteria"]
    assert set(reload["draft"]) == {c["criterion"] for c in some}
    submit = client.post(
        f"/api/v1/assignments/{body['id']}/submit/", {"labels": labels(body)}, format="json"
    )
    assert submit.status_code == 201
    again = client.post(
        f"/api/v1/assignments/{body['id']}/submit/", {"labels": labels(body)}, format="json"
    )
    assert again.status_code == 200
    different = client.post(
        f"/api/v1/assignments/{body['id']}/submit/",
        {"labels": labels(body, hit=False)},
        format="json",
    )
    assert different.status_code == 409
    second = claim(client)
    assert second.status_code == 201 and second.json()["unit"]["token"] != body["unit"]["token"]
    client.post(
        f"/api/v1/assignments/{second.json()['id']}/submit/",
        {"labels": labels(second.json())},
        format="json",
    )
    assert claim(client).status_code == 204
    done = client.get("/api/v1/assignments/completed/").json()
    assert done["count"] == 2 and len(done["results"]) == 2


def test_incomplete_submit_gets_400_with_the_reason():
    expert = ExpertFactory()
    open_study(cases=1, experts=[expert])
    client = client_for(expert.user)
    body = claim(client).json()
    response = client.post(
        f"/api/v1/assignments/{body['id']}/submit/", {"labels": labels(body)[1:]}, format="json"
    )
    assert response.status_code == 400
    assert "criteria have no label" in response.json()["labels"][0]
    assert not Submission.objects.exists()


def test_anonymous_requests_get_401():
    open_study(cases=1, experts=[ExpertFactory()])
    client = APIClient()
    assert claim(client).status_code == 401
    assert client.get("/api/v1/assignments/completed/").status_code == 401
    assert client.get("/api/v1/studies/").status_code == 401


def test_an_expert_cannot_read_draft_renew_or_submit_anothers_assignment():
    owner, intruder = ExpertFactory.create_batch(2)
    open_study(cases=2, experts=[owner, intruder])
    body = claim(client_for(owner.user)).json()
    other = client_for(intruder.user)
    base = f"/api/v1/assignments/{body['id']}"
    assert other.get(f"{base}/").status_code == 404
    assert other.put(f"{base}/draft/", {"labels": []}, format="json").status_code == 404
    assert other.post(f"{base}/renew/").status_code == 404
    response = other.post(f"{base}/submit/", {"labels": labels(body)}, format="json")
    assert response.status_code == 404
    assert not Submission.objects.exists()
    assert other.get("/api/v1/assignments/not-a-uuid/").status_code == 404


def test_an_expert_cannot_see_or_claim_in_a_study_they_are_not_part_of():
    member, outsider = ExpertFactory.create_batch(2)
    open_study(cases=1, experts=[member])
    client = client_for(outsider.user)
    assert claim(client).status_code == 404
    assert client.get("/api/v1/studies/").json()["results"] == []


def test_a_user_without_expert_profile_is_forbidden():
    open_study(cases=1, experts=[ExpertFactory()])
    client = client_for(UserFactory())
    assert claim(client).status_code == 403


def test_schema_and_offline_docs_page():
    client = APIClient()
    schema = client.get("/api/schema/?format=json")
    assert schema.status_code == 200
    assert "/api/v1/work/rating/next/" in schema.json()["paths"]
    docs = client.get("/api/docs/")
    assert docs.status_code == 200
    html = docs.content.decode()
    assert "swagger-ui" in html
    # Offline: every asset the page loads is served by us, none from another host (the
    # page's random CSRF token may contain any letters, so the page text is not searched);
    # its set-up script is the page's own (?script), as the Content-Security-Policy wants.
    assets = re.findall(r'(?:src|href)\s*=\s*"([^"]*)"', html)
    assert assets and all(url.startswith(("/static/", "/api/docs/?script")) for url in assets)


def test_a_claim_that_finds_every_unit_busy_answers_503_with_retry_after(monkeypatch):
    expert = ExpertFactory()
    open_study(cases=1, experts=[expert])
    client = APIClient()
    client.force_authenticate(expert.user)
    from annotation.services import claims

    # Every unit tried filled up under the claim in every round (other claimers won them all).
    monkeypatch.setattr(claims, "_claim_slot", lambda **kwargs: None)
    monkeypatch.setattr(claims, "CLAIM_ROUNDS", 1)
    response = client.post("/api/v1/assignments/next/?study=study-a")
    assert response.status_code == 503
    assert int(response["Retry-After"]) >= 1
    assert response.json()["detail"]


def test_lists_come_in_pages_that_a_client_can_follow():
    expert = ExpertFactory()
    open_study(cases=3, experts=[expert])
    client = client_for(expert.user)
    submitted = []
    while (reply := claim(client)).status_code == 201:
        body = reply.json()
        client.post(
            f"/api/v1/assignments/{body['id']}/submit/", {"labels": labels(body)}, format="json"
        )
        submitted.append(body["id"])
    first = client.get("/api/v1/assignments/completed/?page_size=2").json()
    assert first["count"] == 3 and len(first["results"]) == 2 and first["previous"] is None
    second = client.get(first["next"]).json()
    assert second["next"] is None and len(second["results"]) == 1
    listed = [row["id"] for row in first["results"] + second["results"]]
    assert listed == submitted[::-1]  # newest first, each once
    assert client.get("/api/v1/assignments/completed/?page=9").status_code == 404
    assert client.get("/api/v1/studies/?page_size=1").json()["count"] == 1
