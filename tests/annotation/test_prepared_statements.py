"""On PostgreSQL a connection prepares the statements it sends again (``config.env``): the
claim's study read, its window, progress's capped count and the study state's reads too,
compiled with their statuses and kinds written in (``compiled._words_written``), so that a
kept plan can use the partial indexes that name them (sent by the ORM with them as
parameters, kept plans made the claim 3× slower on a full pool). The window's and "any
left"'s values are hidden from the planner (``compiled.rows_one_plan``), so that PostgreSQL
keeps their plan instead of planning it for every starting point."""

from django.db import connection
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from annotation.models import Pool
from annotation.selectors import work as selectors_work
from annotation.selectors.work import CANDIDATE_WINDOW, LEFT_FOR_ME_CAP
from tests.builders.accounts import ExpertFactory
from tests.builders.studies import open_study

# The taken-slots subquery every statement over ``_free_units`` carries.
FREE_UNITS = 'COALESCE((SELECT COUNT(U0."id")'


def prepared() -> list[str]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT statement FROM pg_prepared_statements")
        return [statement for (statement,) in cursor.fetchall()]


def only(statements: list[str], *parts: str) -> str:
    """The one statement that contains every part."""
    [statement] = [statement for statement in statements if all(p in statement for p in parts)]
    return statement


def test_hot_statements_are_prepared_with_their_words_written_in(on_postgres):
    experts = ExpertFactory.create_batch(2)
    open_study(cases=6, experts=experts)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=experts[0].user).key}")
    pool = Pool.objects.get(name="study-a")
    for _ in range(3):
        claimed = client.post("/api/v1/assignments/next/?study=study-a").json()
        # A reload claims again: the unit held comes back.
        assert client.post("/api/v1/assignments/next/?study=study-a").json()["id"] == claimed["id"]
        assert client.get("/api/v1/studies/study-a/progress/").status_code == 200
        labels = [{"criterion": c["id"], "hit": True} for c in claimed["unit"]["criteria"]]
        submitted = client.post(
            f"/api/v1/assignments/{claimed['id']}/submit/", {"labels": labels}, format="json"
        )
        assert submitted.status_code == 201
        state = selectors_work.work_state_in_pool(expert=experts[1], pool=pool)
        assert state == selectors_work.WorkState.READY

    statements = prepared()
    assert any('FROM "authtoken_token"' in statement for statement in statements)
    assert any('FROM "annotation_pool"' in statement for statement in statements)
    leased = """"status" = 'leased'"""
    # The claim's study read, with the expert's open lease in it; the open lease the reload
    # renews and the study state asks for (one statement, ``lease_open_in_pool``): both by
    # the open leases' index.
    assert leased in only(statements, '"held_lease"')
    assert leased in only(
        statements, 'SELECT "annotation_assignment"."id", "annotation_assignment"', '"pool_id" = $'
    )
    walks = [statement for statement in statements if FREE_UNITS in statement]
    assert all(""""kind" = 'rating'""" in walk for walk in walks)
    windows = [walk for walk in walks if walk.endswith(f"LIMIT {CANDIDATE_WINDOW}")]
    assert windows
    [any_left] = [walk for walk in walks if walk.endswith("LIMIT 1")]
    # Besides, progress's two shapes: the endpoint's, and the claim's (today counted by its
    # study read).
    progress = [walk for walk in walks if f"LIMIT {LEFT_FOR_ME_CAP + 1}" in walk]
    assert len(progress) == 2
    assert len(walks) == len(windows) + 1 + len(progress)
    # The values of the window and "any left" hidden from the planner; progress's in sight.
    assert all('"pool_id" = (SELECT $' in walk for walk in [*windows, any_left])
    assert not any('"pool_id" = (SELECT $' in walk for walk in progress)
