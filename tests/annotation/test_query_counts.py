"""The queries of an expert's hot requests, held to a fixed cap (on SQLite and PostgreSQL).

A claim reads a window of the pool, never the whole of it, so a bigger study must not cost
more queries either. The caps count everything the database is sent for the request,
transaction statements (BEGIN, SAVEPOINT, COMMIT) included; docs/benchmarks.md has the
timings.
"""

from collections import Counter

import pytest
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from annotation.services import claims
from tests.builders.accounts import ExpertFactory
from tests.builders.studies import open_study

pytestmark = pytest.mark.django_db

NEXT = 7  # the claim's answer carries the progress line: its counts are one more statement
NEXT_SWEEPING = 11  # the first claim in a minute also records its sweep and marks run-out leases
PROGRESS = 3  # token, study, the counts (the units left for me among them)
DRAFT = 4
SUBMIT = 8
LAST_SUBMIT = 14  # the unit's last rating: its ratings read once, peer agreement, gold, the tally
# The workbench's session is a database row (config/settings.py: a Redis restart logs nobody
# out): one read more than the token's.
SESSION_ROW = {"token": 0, "session": 1}


def client_for(expert, auth: str) -> APIClient:
    """The API's token, or the workbench's session cookie (its row, then its user with the
    expert profile in one query: ``SESSION_ROW``)."""
    client = APIClient()
    if auth == "token":
        token = Token.objects.create(user=expert.user).key
        client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    else:
        client.force_login(expert.user)
    return client


def work_on_one_unit(client, assignment_queries, ratings: Counter, *, claim_cap: int) -> None:
    """Claim, read the progress line, autosave and submit, each under its cap."""
    with assignment_queries(claim_cap):
        claimed = client.post("/api/v1/assignments/next/?study=study-a")
    assert claimed.status_code == 201
    body = claimed.json()
    with assignment_queries(PROGRESS):
        assert client.get("/api/v1/studies/study-a/progress/").status_code == 200
    labels = [{"criterion": c["id"], "hit": True} for c in body["unit"]["criteria"]]
    url = f"/api/v1/assignments/{body['id']}"
    with assignment_queries(DRAFT):
        saved = client.put(f"{url}/draft/", {"labels": labels[:1]}, format="json")
    assert saved.status_code == 200
    token = body["unit"]["token"]
    ratings[token] += 1
    with assignment_queries(LAST_SUBMIT if ratings[token] == 3 else SUBMIT):
        submitted = client.post(f"{url}/submit/", {"labels": labels}, format="json")
    assert submitted.status_code == 201


@pytest.mark.parametrize(("units", "auth"), [(3, "token"), (20, "token"), (3, "session")])
def test_claim_autosave_and_submit_stay_under_their_caps_whatever_the_pool(
    units, auth, django_assert_max_num_queries, monkeypatch
):
    # The study's first claim sweeps its run-out leases; no other within the test's time.
    monkeypatch.setattr(claims, "LEASE_SWEEP_SECONDS", 3600)
    experts = ExpertFactory.create_batch(3)
    open_study(cases=units, experts=experts)
    clients = [client_for(expert, auth) for expert in experts]

    def capped(cap: int):
        return django_assert_max_num_queries(cap + SESSION_ROW[auth])

    ratings = Counter()
    # Everyone rates until the study is complete; the caps hold for every request, the
    # first ones (empty pool) and the last ones (a unit's last rating) alike.
    for round_ in range(units):
        for i, client in enumerate(clients):
            cap = NEXT_SWEEPING if round_ == i == 0 else NEXT
            work_on_one_unit(client, capped, ratings, claim_cap=cap)
    assert sorted(set(ratings.values())) == [3]
    for client in clients:
        assert client.post("/api/v1/assignments/next/?study=study-a").status_code == 204
