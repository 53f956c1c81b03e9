"""On PostgreSQL a connection prepares the statements it sends again (``config.env``), except
the claim's study read and window and the work state's "any left" over a pool's free units
(``compiled.planned_per_call``): their best plan depends on how full the pool is, and kept
generic plans made the claim 3× slower on a full pool. Progress's capped count of the units
left keeps one plan well, and is prepared."""

from django.db import connection
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from annotation.models import Pool
from annotation.selectors import work as selectors_work
from tests.annotation.factories import ExpertFactory
from tests.validation.factories import open_study

# The taken-slots subquery every statement over ``_free_units`` carries.
FREE_UNITS = 'COALESCE((SELECT COUNT(U0."id")'


def prepared() -> list[str]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT statement FROM pg_prepared_statements")
        return [statement for (statement,) in cursor.fetchall()]


def test_hot_statements_are_prepared_and_the_free_unit_walks_never_are(on_postgres):
    experts = ExpertFactory.create_batch(2)
    open_study(cases=6, experts=experts)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=experts[0].user).key}")
    pool = Pool.objects.get(name="study-a")
    for _ in range(3):
        claimed = client.post("/api/v1/assignments/next/?study=study-a").json()
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
    walks = [statement for statement in statements if FREE_UNITS in statement]
    assert [walk for walk in walks if "LIMIT 101" not in walk] == []  # no window, no "any left"
    # Progress's two shapes: the endpoint's, and the claim's (today counted by its study read).
    assert len(walks) == 2
    assert not any('"held_lease"' in statement for statement in statements)  # the study read
