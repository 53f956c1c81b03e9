"""Hostile input is a 400, never a 5xx (issue 40, items 5 and 6).

A NUL or a lone surrogate cannot be stored in PostgreSQL's text (nor encoded as UTF-8 for
SQLite), so wherever text comes in (a JSON body, a form, a query string) it is refused with a
400 naming the field, before any view sees it (``config.request_text``). A body nested absurdly
deep, too big, or with a value of the wrong type where a criterion id belongs is a 400 in the
API's JSON error shape too. Every test here runs on both databases.
"""

import io
import json

import pytest
from django.test import Client
from rest_framework.test import APIClient

from tests.builders.accounts import PASSWORD, UserFactory
from tests.builders.hostile import api_for, hostile_world, page_for, send_json

pytestmark = pytest.mark.django_db

BAD_TEXT = {"nul": "before\x00after", "surrogate": "before\ud800after"}


@pytest.fixture
def world():
    return hostile_world()


def json_cases(world, text: str) -> list[tuple]:
    """(user, method, url, body, field) for every expert and admin write that takes text."""
    claim, decision = world["claim"], world["decision"]
    labels = [{"criterion": c["id"], "hit": True, "note": text} for c in claim["unit"]["criteria"]]
    decisions = [
        {"criterion": c["id"], "hit": True, "reason": text} for c in decision["unit"]["criteria"]
    ]
    labeller, rater, senior = world["labeller"].user, world["rater"].user, world["senior"].user
    staff = UserFactory(is_staff=True)
    rated, held = world["rated"], f"/api/v1/assignments/{claim['id']}"
    return [
        (labeller, "put", f"{held}/draft/", {"labels": labels}, "labels"),
        (labeller, "post", f"{held}/submit/", {"labels": labels}, "labels"),
        (rater, "post", f"/api/v1/assignments/{rated}/revise/", {"labels": labels}, "labels"),
        (rater, "post", f"/api/v1/assignments/{rated}/flag/", {"reason": text}, "reason"),
        (senior, "post", f"/api/v1/adjudications/{decision['id']}/submit/",
         {"decisions": decisions}, "decisions"),
        (staff, "post", "/api/v1/admin/studies/", {"name": text, "dataset": "x"}, "name"),
        (None, "post", "/api/v1/auth/token/", {"username": text, "password": "x"}, "username"),
    ]  # fmt: skip


@pytest.mark.parametrize("kind", sorted(BAD_TEXT))
def test_bad_text_in_any_json_body_is_a_400_naming_the_field(world, kind):
    for user, method, url, body, field in json_cases(world, BAD_TEXT[kind]):
        client = api_for(user) if user else APIClient(HTTP_ACCEPT_LANGUAGE="en")
        response = send_json(client, method, url, body)
        assert response.status_code == 400, (url, response.content[:300])
        answer = response.json()
        assert list(answer) == [field], (url, answer)
        assert "cannot be stored" in answer[field][0], (url, answer)


def test_a_bad_character_in_a_field_name_or_deep_in_a_body_is_refused_too(world):
    claim = world["claim"]
    client = api_for(world["labeller"].user)
    url = f"/api/v1/assignments/{claim['id']}/draft/"
    for body, named in [
        ({"labels": [{"criterion\x00": "x"}]}, "labels[0]"),
        ({"labels": [], "extra": {"a": [[["\ud800"]]]}}, "extra.a[0][0][0]"),
    ]:
        response = send_json(client, "put", url, body)
        assert response.status_code == 400, response.content[:300]
        (messages,) = response.json().values()
        assert messages[0].startswith(f"“{named}"), messages
        assert "\x00" not in messages[0] and "\ud800" not in messages[0]


def page_cases(world, text: str) -> list[tuple]:
    """(user, url, form, field) for every page form that takes text."""
    rater, senior = world["rater"].user, world["senior"].user
    return [
        (rater, f"/discuss/{world['discussion']}/post/", {"body": text}, "body"),
        (rater, f"/done/{world['rated']}/", {"action": "flag", "reason": text}, "reason"),
        (senior, "/standards/warmth/", {"text": text, "reason": "r"}, "text"),
        (None, "/login/", {"username": text, "password": PASSWORD}, "username"),
        (UserFactory(is_staff=True, is_superuser=True), "/admin/auth/group/add/",
         {"name": text}, "name"),
    ]  # fmt: skip


def test_a_nul_in_any_form_is_a_400_page_naming_the_field(world):
    # A browser's form cannot carry a lone surrogate (its bytes decode to U+FFFD); a NUL it can.
    for user, url, form, field in page_cases(world, BAD_TEXT["nul"]):
        client = page_for(user) if user else Client(HTTP_ACCEPT_LANGUAGE="en")
        response = client.post(url, form)
        assert response.status_code == 400, (url, response.content[:300])
        assert response["Content-Type"].startswith("text/html")
        assert f"“{field}”" in response.content.decode(), url


def test_a_nul_in_a_query_string_is_a_400_naming_the_parameter(world):
    rater = world["rater"].user
    for url in ["/done/?q=%00", "/done/?q=a%00b&page=1", "/faq/?q=%00"]:
        response = page_for(rater).get(url)
        assert response.status_code == 400, (url, response.content[:300])
        assert "“q”" in response.content.decode()
    api = api_for(rater).get("/api/v1/assignments/completed/?page=%00")
    assert api.status_code == 400 and list(api.json()) == ["page"], api.content
    # The same pages without the NUL still answer.
    assert page_for(rater).get("/done/?q=a").status_code == 200


@pytest.mark.parametrize("criterion", [[1], {"id": "x"}, 3.5, True, None, [[["deep"]]]], ids=repr)
def test_a_criterion_of_the_wrong_type_is_a_400_in_the_api_shape(world, criterion):
    claim, decision = world["claim"], world["decision"]
    for user, method, url, field in [
        (world["labeller"].user, "put", f"/api/v1/assignments/{claim['id']}/draft/", "labels"),
        (world["labeller"].user, "post", f"/api/v1/assignments/{claim['id']}/submit/", "labels"),
        (world["rater"].user, "post", f"/api/v1/assignments/{world['rated']}/revise/", "labels"),
        (world["senior"].user, "post", f"/api/v1/adjudications/{decision['id']}/submit/",
         "decisions"),
    ]:  # fmt: skip
        body = {field: [{"criterion": criterion, "hit": True, "reason": "r"}]}
        if field == "labels":
            del body[field][0]["reason"]
        response = send_json(api_for(user), method, url, body)
        assert response.status_code == 400, (url, response.content[:300])
        assert list(response.json()) == [field], response.json()


def test_a_body_nested_100000_deep_is_a_400_in_the_api_shape(world):
    claim = world["claim"]
    deep = '{"labels": ' + "[" * 100_000 + "]" * 100_000 + "}"
    objects = '{"labels": [' + '{"a": ' * 50 + "1" + "}" * 50 + "]}"
    for raw in [deep, "[" * 100_000 + "]" * 100_000, objects]:
        for client, url in [
            (api_for(world["labeller"].user), f"/api/v1/assignments/{claim['id']}/draft/"),
            (APIClient(), "/api/v1/auth/token/"),
        ]:
            method = "put" if url.endswith("draft/") else "post"
            response = send_json(client, method, url, raw)
            assert response.status_code == 400, (url, response.content[:300])
            assert "nested" in response.json()["detail"], response.json()


def test_a_body_too_big_is_a_400_in_the_api_shape_and_a_page_for_pages(world):
    claim = world["claim"]
    huge = json.dumps({"labels": [], "pad": "x" * (30 * 1024 * 1024)})
    response = send_json(
        api_for(world["labeller"].user), "put", f"/api/v1/assignments/{claim['id']}/draft/", huge
    )
    assert response.status_code == 400, response.content[:300]
    assert response["Content-Type"] == "application/json"
    assert "too big" in response.json()["detail"]
    page = page_for(world["rater"].user).post(
        f"/discuss/{world['discussion']}/post/", {"body": "x" * (30 * 1024 * 1024)}
    )
    assert page.status_code == 400 and page["Content-Type"].startswith("text/html")
    assert "too big" in page.content.decode()


def test_good_text_still_goes_through(world):
    """The guard refuses nothing a person could type: CJK, emoji (a surrogate pair in JSON's
    escapes), tabs and newlines."""
    claim = world["claim"]
    text = "共情 \U0001f600\ttab\nline"
    labels = [{"criterion": c["id"], "hit": True, "note": text} for c in claim["unit"]["criteria"]]
    client = api_for(world["labeller"].user)
    url = f"/api/v1/assignments/{claim['id']}/submit/"
    assert send_json(client, "post", url, {"labels": labels}).status_code == 201
    flag = send_json(
        api_for(world["rater"].user), "post", f"/api/v1/assignments/{world['rated']}/flag/",
        '{"reason": "\\ud83d\\ude00 doubt"}',
    )  # fmt: skip
    assert flag.status_code == 201, flag.content


def test_too_many_fields_in_a_query_or_a_form_is_a_400_in_the_api_shape(world):
    client = api_for(world["rater"].user)
    query = client.get("/api/v1/assignments/completed/?" + "&".join(["a=1"] * 1001))
    assert query.status_code == 400 and "fields" in query.json()["detail"], query.content[:300]
    files = {f"f{i}": io.BytesIO(b"x") for i in range(101)}
    form = client.post(f"/api/v1/assignments/{world['rated']}/flag/", files, format="multipart")
    assert form.status_code == 400 and "too big" in form.json()["detail"], form.content[:300]
