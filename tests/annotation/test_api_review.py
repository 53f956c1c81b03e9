"""Revising and flagging over the expert API: the same rules as the pages, JSON answers."""

import pytest
from rest_framework.test import APIClient

from annotation.models import ReviewFlag
from tests.builders.accounts import ExpertFactory
from tests.builders.studies import open_study

pytestmark = pytest.mark.django_db


def client_for(user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def rate(client, hit=True) -> tuple[str, list[dict]]:
    body = client.post("/api/v1/assignments/next/?study=study-a").json()
    labels = [{"criterion": c["id"], "hit": hit} for c in body["unit"]["criteria"]]
    assert (
        client.post(
            f"/api/v1/assignments/{body['id']}/submit/", {"labels": labels}, format="json"
        ).status_code
        == 201
    )
    return body["id"], labels


def test_revise_then_flag_over_the_api():
    experts = ExpertFactory.create_batch(3)
    open_study(cases=1, experts=experts)
    clients = [client_for(e.user) for e in experts]
    first, labels = rate(clients[0])
    flipped = [{**label, "hit": False} for label in labels]

    revised = clients[0].post(
        f"/api/v1/assignments/{first}/revise/", {"labels": flipped}, format="json"
    )
    assert revised.status_code == 200 and revised.json() == {
        "id": first,
        "version": 2,
        "changed": True,
    }
    same = clients[0].post(
        f"/api/v1/assignments/{first}/revise/", {"labels": flipped}, format="json"
    )
    assert same.json()["changed"] is False
    bad = clients[0].post(
        f"/api/v1/assignments/{first}/revise/", {"labels": flipped[:1]}, format="json"
    )
    assert bad.status_code == 400 and "labels" in bad.json()
    early = clients[0].post(
        f"/api/v1/assignments/{first}/flag/", {"reason": "doubt"}, format="json"
    )
    assert early.status_code == 409
    # Someone else's assignment is simply not found.
    assert (
        clients[1]
        .post(f"/api/v1/assignments/{first}/revise/", {"labels": flipped}, format="json")
        .status_code
        == 404
    )

    rate(clients[1])
    rate(clients[2])
    late = clients[0].post(
        f"/api/v1/assignments/{first}/revise/", {"labels": labels}, format="json"
    )
    assert late.status_code == 409 and "flag it for review" in late.json()["detail"]
    flag = clients[0].post(f"/api/v1/assignments/{first}/flag/", {"reason": "doubt"}, format="json")
    assert flag.status_code == 201 and flag.json()["status"] == "open"
    assert ReviewFlag.objects.get().reason == "doubt"
    again = clients[0].post(
        f"/api/v1/assignments/{first}/flag/", {"reason": "again"}, format="json"
    )
    assert again.status_code == 409
    assert (
        clients[0].post(f"/api/v1/assignments/{first}/flag/", [1], format="json").status_code == 400
    )


def test_the_schema_documents_revise_flag_and_progress():
    paths = client_for(ExpertFactory().user).get("/api/schema/?format=json").json()["paths"]
    for path in ("revise", "flag"):
        operation = paths[f"/api/v1/work/rating/{{assignment_id}}/{path}/"]["post"]
        assert "409" in operation["responses"], path
    assert "/api/v1/studies/{study}/progress/" in paths
