"""The API's schema documents what the API answers: every status with its body, parameters as
strict as the server, links from a claim to what is done with it. (Schemathesis checks the
served API against it: tests/product/test_api_contract.py.)"""

import pytest
from rest_framework.test import APIClient

from tests.builders.accounts import ExpertFactory
from tests.builders.studies import open_study

pytestmark = pytest.mark.django_db

ERROR_BODIES = {
    "#/components/schemas/Error",
    "#/components/schemas/BadRequest",
    "#/components/schemas/NotEnrolled",
}


@pytest.fixture(scope="module")
def schema(django_db_blocker) -> dict:
    with django_db_blocker.unblock():
        return APIClient().get("/api/schema/?format=json").json()


def api_operations(schema: dict):
    for path, operations in schema["paths"].items():
        if path.startswith("/api/v1/"):
            for method, operation in operations.items():
                yield f"{method.upper()} {path}", operation


def test_every_refusal_is_documented_with_its_body(schema):
    for name, operation in api_operations(schema):
        responses = operation["responses"]
        expected = {"400", "429", "503"} if name.endswith("/auth/token/") else {"401", "403", "503"}
        assert expected <= set(responses), name
        for code, response in responses.items():
            if int(code) >= 400:
                body = response["content"]["application/json"]["schema"]["$ref"]
                assert body in ERROR_BODIES, (name, code)
            if code in ("429", "503"):
                assert "Retry-After" in response["headers"], (name, code)


def test_parameters_are_as_strict_as_the_server(schema):
    for name, operation in api_operations(schema):
        for parameter in operation.get("parameters", []):
            if parameter["name"] == "study" and parameter["in"] == "query":
                assert parameter["schema"]["minLength"] == 1, name
            if parameter["name"] in ("page", "page_size"):
                assert parameter["schema"]["minimum"] == 1, name
            if parameter["name"] == "assignment_id":
                assert parameter["schema"]["format"] == "uuid", name


def test_a_claim_links_to_its_draft_and_submit(schema):
    paths = schema["paths"]
    links = paths["/api/v1/work/rating/next/"]["post"]["responses"]["201"]["links"]
    for path, method in [
        ("/api/v1/work/rating/{assignment_id}/draft/", "put"),
        ("/api/v1/work/rating/{assignment_id}/submit/", "post"),
    ]:
        link = links[paths[path][method]["operationId"]]
        assert link["parameters"] == {"assignment_id": "$response.body#/id"}
    submitted = paths["/api/v1/work/rating/{assignment_id}/submit/"]["post"]["responses"]["201"]
    assert {"v1_work_rating_revise_create", "v1_work_rating_flag_create"} <= set(submitted["links"])


@pytest.mark.parametrize("query", ["page_size=0", "page_size=-3", "page_size=two", "page_size=",
                                   "page_size=2&page_size=3", "page_size=²"])  # fmt: skip
def test_a_page_size_the_schema_does_not_allow_is_refused(query):
    expert = ExpertFactory()
    client = APIClient()
    client.force_authenticate(expert.user)
    reply = client.get(f"/api/v1/studies/?{query}")
    assert reply.status_code == 400
    assert list(reply.json()) == ["page_size"]


def test_a_page_size_past_the_most_gives_the_most():
    expert = ExpertFactory()
    open_study(cases=1, experts=[expert])
    client = APIClient()
    client.force_authenticate(expert.user)
    for query in ("", "?page_size=1", "?page_size=100000"):
        reply = client.get(f"/api/v1/studies/{query}")
        assert reply.status_code == 200 and reply.json()["count"] == 1
