"""The API's token authentication (``config.auth``): DRF's answers, the expert read with the
token."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from tests.builders.accounts import ExpertFactory, UserFactory

pytestmark = pytest.mark.django_db


def get_studies(key: str):
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    return client.get("/api/v1/studies/")


def test_an_unknown_token_and_an_inactive_users_token_get_401():
    assert get_studies("no-such-token").status_code == 401
    user = UserFactory(is_active=False)
    assert get_studies(Token.objects.create(user=user).key).status_code == 401


def test_a_user_who_is_no_expert_is_refused_with_403():
    answer = get_studies(Token.objects.create(user=UserFactory()).key)
    assert answer.status_code == 403
    assert answer.json()["detail"] == "only experts can do this"


def test_the_expert_is_read_in_the_tokens_query():
    expert = ExpertFactory()
    key = Token.objects.create(user=expert.user).key
    with CaptureQueriesContext(connection) as queries:
        assert get_studies(key).status_code == 200
    expert_reads = [q["sql"] for q in queries if 'FROM "annotation_expert"' in q["sql"]]
    assert expert_reads == []
    assert '"annotation_expert"' in queries[0]["sql"] and "authtoken_token" in queries[0]["sql"]
