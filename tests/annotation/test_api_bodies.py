"""Every expert API endpoint that reads a body refuses a body that is not a JSON object (or
not JSON at all) with 400 and a message in the request's language, never 500 (issue 12, d)."""

import pytest
from rest_framework.test import APIClient

from tests.builders.accounts import ExpertFactory
from tests.builders.adjudication import split_study
from tests.builders.studies import open_study

pytestmark = pytest.mark.django_db

NOT_OBJECTS = ["[1, 2]", '[{"labels": []}]', '"labels"', "42", "3.5", "true", "null"]
NOT_JSON = ["{labels: [", "\xff\xfe", '{"labels": [}']


def api_for(user, language="en") -> APIClient:
    client = APIClient(HTTP_ACCEPT_LANGUAGE=language)
    client.force_authenticate(user)
    return client


def _rating():
    expert = ExpertFactory()
    open_study(cases=1, experts=[expert])
    body = api_for(expert.user).post("/api/v1/assignments/next/?study=study-a").json()
    return expert, body["id"]


def _adjudication():
    _, _, senior = split_study(splits=["*"], name="bodies")
    body = api_for(senior.user).post("/api/v1/adjudications/next/?study=bodies").json()
    return senior, body["id"]


@pytest.fixture(params=["draft", "submit", "adjudication"])
def endpoint(request):
    """(user, method, url, the body's field) of one endpoint that reads a body."""
    if request.param == "adjudication":
        senior, decision = _adjudication()
        return senior.user, "post", f"/api/v1/adjudications/{decision}/submit/", "decisions"
    expert, assignment = _rating()
    method = "put" if request.param == "draft" else "post"
    return expert.user, method, f"/api/v1/assignments/{assignment}/{request.param}/", "labels"


def send(client: APIClient, method: str, url: str, raw: str):
    return getattr(client, method)(url, raw, content_type="application/json")


@pytest.mark.parametrize("raw", NOT_OBJECTS)
def test_a_body_that_is_not_an_object_gets_400_naming_the_field(endpoint, raw):
    user, method, url, field = endpoint
    response = send(api_for(user), method, url, raw)
    assert response.status_code == 400, (url, raw, response.content[:300])
    detail = response.json()["detail"]
    assert "JSON object" in detail and f'"{field}"' in detail, detail


@pytest.mark.parametrize("raw", NOT_JSON)
def test_a_body_that_is_not_json_gets_400(endpoint, raw):
    user, method, url, _ = endpoint
    response = send(api_for(user), method, url, raw)
    assert response.status_code == 400, (url, raw, response.content[:300])
    assert response.json()["detail"]


def test_a_missing_field_or_one_that_is_not_a_list_gets_400(endpoint):
    user, method, url, field = endpoint
    for raw in ["{}", f'{{"{field}": 5}}', f'{{"{field}": {{}}}}']:
        response = send(api_for(user), method, url, raw)
        assert response.status_code == 400, (url, raw)


def test_the_message_follows_the_request_language(endpoint):
    user, method, url, field = endpoint
    zh = send(api_for(user, "zh-hans"), method, url, "[1]")
    assert zh.status_code == 400 and zh["Content-Language"] == "zh-hans"
    detail = zh.json()["detail"]
    assert "JSON 对象" in detail and f'"{field}"' in detail, detail
    not_json = send(api_for(user, "zh-hans"), method, url, "{oops")
    assert not_json.status_code == 400
    assert "JSON" in not_json.json()["detail"] and "无法" in not_json.json()["detail"]
    missing = send(api_for(user, "zh-hans"), method, url, "{}")
    assert missing.status_code == 400
    assert any("\u4e00" <= ch <= "\u9fff" for ch in str(missing.json())), missing.json()


def test_a_study_name_with_a_nul_is_no_study_never_a_500():
    """A NUL in a study's path segment finds no study (404), on SQLite and on PostgreSQL,
    whose text cannot hold one (a lookup with it was a DataError, a 500: the served API's
    schemathesis run found it); in ``?study=`` it is refused naming the parameter (400, as
    any query string's NUL is: config.request_text)."""
    _, _, senior = split_study(splits=["*"], name="bodies")
    api = api_for(senior.user)
    claimed = api.post("/api/v1/assignments/next/?study=bodies%00x")
    assert (claimed.status_code, list(claimed.json())) == (400, ["study"])
    assert api.get("/api/v1/studies/bodies%00x/progress/").status_code == 404
    assert api.post("/api/v1/adjudications/next/?study=bo%00dies").status_code == 400
    assert api.get("/rate/bodies%00x/").status_code == 404
    # The same names without the NUL still lead to the study.
    assert api.get("/api/v1/studies/bodies/progress/").status_code == 200
    assert api.post("/api/v1/adjudications/next/?study=bodies").status_code == 201
