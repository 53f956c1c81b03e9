"""Fuzzing every write endpoint: hostile input never gets a 5xx (issue 40, items 5 and 6).

Each write of the API (every POST and PUT its schema lists, checked below) and each page form
that takes text gets a valid body with every value in turn, and every container, replaced by
something hostile (a NUL, a lone surrogate, a list nested deeper than any reader wants, values
of the wrong type, long text), then bodies that Hypothesis makes up from the same pieces.
The answer may be any refusal; a 5xx fails the test with the requests that got one.
"""

import json
import re

import pytest
from django.test import Client
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rest_framework.test import APIClient

from annotation.services.construction import (
    construction_task_claim_next,
    criterion_review_submit,
    panel_send,
)
from tests.builders.accounts import ExpertFactory, UserFactory
from tests.builders.construction import project_with_work_open
from tests.builders.hostile import hostile_world
from validation import services

pytestmark = pytest.mark.django_db

DEEP = [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]
HOSTILE = [
    "\x00", "a\x00b", "\ud800", "x\udfffy", "\ud83d", DEEP, [1], [[1]], {"x": [1]}, {},
    [], 1e308, -1, 2**70, 3.5, True, False, None, "", " ", "x" * 5000, "\u202e" * 10,
]  # fmt: skip


def api(user) -> APIClient:
    client = APIClient(raise_request_exception=False)
    if user is not None:
        client.force_authenticate(user)
    return client


def page(user) -> Client:
    client = Client(raise_request_exception=False)
    if user is not None:
        client.force_login(user)
    return client


@pytest.fixture
def targets():
    """(user, method, path, valid body) of every write of the API."""
    world = hostile_world()
    staff = UserFactory(is_staff=True, is_superuser=True)
    study = services.study_create(
        name="fuzz-close", dataset=world["study"].dataset,
        models=list(world["study"].models_under_test.all()), fraction=1.0, seed=3, experts=[],
    )  # fmt: skip
    claim, decision, rated = world["claim"], world["decision"], world["rated"]
    labels = [
        {"criterion": c["id"], "hit": True, "note": "n", "version": 1}
        for c in claim["unit"]["criteria"]
    ]
    decisions = [
        {"criterion": c["id"], "hit": False, "reason": "r"} for c in decision["unit"]["criteria"]
    ]
    labeller, rater, senior = world["labeller"].user, world["rater"].user, world["senior"].user
    held = f"/api/v1/work/rating/{claim['id']}"
    create = {
        "name": "fuzzed", "dataset": world["study"].dataset.name, "models": ["m"],
        "judge_runs": ["j"], "fraction": 0.5, "seed": 1, "plan": {"half_width": 0.1},
        "look_every": 2,
    }  # fmt: skip
    api_writes = [
        (None, "post", "/api/v1/auth/token/", {"username": "u", "password": "p"}),
        (labeller, "post", "/api/v1/work/rating/next/?study=hostile-b", {}),
        (labeller, "put", f"{held}/draft/", {"labels": labels, "active_seconds": 5}),
        (labeller, "post", f"{held}/renew/", {}),
        (rater, "post", f"/api/v1/work/rating/{rated}/revise/", {"labels": labels}),
        (rater, "post", f"/api/v1/work/rating/{rated}/flag/", {"reason": "doubt"}),
        (senior, "post", "/api/v1/work/adjudication/next/?study=hostile", {}),
        (senior, "post", f"/api/v1/work/adjudication/{decision['id']}/renew/", {}),
        (senior, "post", f"/api/v1/work/adjudication/{decision['id']}/submit/",
         {"decisions": decisions}),
        (staff, "post", "/api/v1/admin/studies/", create),
        (staff, "post", f"/api/v1/admin/studies/{study.name}/open/", {}),
        (staff, "post", f"/api/v1/admin/studies/{study.name}/close/", {"unrated": "keep"}),
        *construction_writes(labeller=world["labeller"], senior=world["senior"]),
        # Last: a valid submit ends the held assignment.
        (labeller, "post", f"{held}/submit/", {"labels": labels, "active_seconds": 5}),
    ]  # fmt: skip
    page_writes = [
        (None, "/login/", {"username": "u", "password": "p"}),
        (None, "/admin/login/", {"username": "u", "password": "p"}),
        (rater, f"/discuss/{world['discussion']}/post/", {"body": "b", "criterion": ""}),
        (rater, f"/done/{rated}/", {"action": "flag", "reason": "r"}),
        (rater, "/done/", {"q": "x"}),
        (senior, "/standards/warmth/", {"text": "t", "reason": "r"}),
        (staff, "/admin/auth/group/add/", {"name": "g"}),
    ]
    return api_writes, page_writes


def construction_writes(*, labeller, senior) -> list:
    """A task of each construction kind held (the labeller marks and reviews, the senior
    sits on the panel), with its claim, renewal and a valid answer."""
    built = project_with_work_open(name="fuzz-build")
    for reviewer in built.experts[:2]:
        task = construction_task_claim_next(
            user=reviewer.user, project=built.project, kind="criterion_review"
        )
        criterion_review_submit(
            user=reviewer.user,
            task_id=task.pk,
            verdicts={c.pk: ("clear", "") for c in task.draft.criteria.filter(status="active")},
        )
    panel_send(user=built.author.user, draft=task.draft)
    writes, who = [], {"difficulty": labeller, "criterion_review": labeller, "panel": senior}
    for kind, expert in who.items():
        claim = f"/api/v1/work/{kind}/next/?project={built.project.name}"
        task = construction_task_claim_next(user=expert.user, project=built.project, kind=kind)
        answer = {
            "difficulty": {"difficulty": "hard", "reason": "other", "comment": "c"},
            "criterion_review": {"verdicts": [
                {"criterion": c.pk, "verdict": "clear", "version": c.version}
                for c in task.draft.criteria.filter(status="active")
            ]},
            "panel": {"vote": "accept"},
        }[kind]  # fmt: skip
        held = f"/api/v1/work/{kind}/{task.public_id}"
        writes += [
            (expert.user, "post", claim, {}),
            (expert.user, "post", f"{held}/renew/", {}),
            (expert.user, "post", f"{held}/submit/", answer),
        ]
    return writes


def mutations(body: object):
    """The body with each value and each container, in turn, replaced by each hostile value."""
    yield from HOSTILE
    if isinstance(body, dict):
        for key, value in body.items():
            for changed in mutations(value):
                yield {**body, key: changed}
        yield {**body, "\x00": 1}
    elif isinstance(body, list):
        for index, value in enumerate(body[:1]):
            for changed in mutations(value):
                yield [*body[:index], changed, *body[index + 1 :]]


def template(path: str) -> str:
    """The schema's path of a request's: ids and study names as its parameters."""
    path = re.sub(r"/work/(rating|adjudication)/[0-9a-f-]{36}/", r"/work/\1/{assignment_id}/", path)
    path = re.sub(r"/work/(\w+)/[0-9a-f-]{36}/", r"/work/\1/{task_id}/", path)
    path = re.sub(r"/admin/studies/[^/]+/", "/admin/studies/{study}/", path)
    return path.split("?")[0]


def server_errors(answers) -> list:
    return [(status, where) for status, where in answers if status >= 500]


def test_the_schema_lists_no_write_this_fuzz_leaves_out(targets):
    api_writes, _ = targets
    schema = json.loads(
        APIClient().get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").content
    )
    listed = {
        (path, method)
        for path, operations in schema["paths"].items()
        for method in operations
        if method in ("post", "put", "patch", "delete")
    }
    fuzzed = {(template(path), method) for _, method, path, _ in api_writes}
    assert listed - fuzzed == set()


def test_every_api_write_with_each_value_made_hostile_answers_without_a_5xx(targets):
    api_writes, _ = targets
    answers = []
    for user, method, path, body in api_writes:
        client = api(user)
        for changed in mutations(body):
            response = getattr(client, method)(
                path, json.dumps(changed), content_type="application/json"
            )
            answers.append((response.status_code, (path, changed)))
    assert len(answers) > 1000
    errors = server_errors(answers)
    assert errors == [], (f"{len(errors)} of {len(answers)} got a 5xx", errors[:5])


def test_every_page_form_with_each_field_made_hostile_answers_without_a_5xx(targets):
    _, page_writes = targets
    answers = []
    for user, path, form in page_writes:
        client = page(user)
        for key in form:
            for value in ["\x00", "a\x00b", "x" * 5000, ["a", "\x00"], "\u202e"]:
                response = client.post(path, {**form, key: value})
                answers.append((response.status_code, (path, key, value)))
        response = client.get(path, {key: "\x00" for key in form})
        answers.append((response.status_code, (path, "query")))
    errors = server_errors(answers)
    assert errors == [], (f"{len(errors)} of {len(answers)} got a 5xx", errors[:5])


HOSTILE_TEXT = st.text(
    alphabet=st.one_of(
        st.characters(codec="utf-8"), st.sampled_from("\x00\ud800\udbff\udc00\udfff\u202e")
    ),
    max_size=20,
)
JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | HOSTILE_TEXT,
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(HOSTILE_TEXT, children, max_size=4)
    ),
    max_leaves=12,
)


@settings(
    max_examples=40,
    deadline=None,
    database=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=st.data())
def test_bodies_hypothesis_makes_up_never_get_a_5xx(targets, data):
    api_writes, _ = targets
    for user, method, path, body in api_writes:
        keys = list(body) if isinstance(body, dict) else []
        made = data.draw(
            st.one_of(
                JSON_VALUES,
                st.fixed_dictionaries({}, optional=dict.fromkeys(keys, JSON_VALUES)),
            )
        )
        response = getattr(api(user), method)(
            path, json.dumps(made), content_type="application/json"
        )
        assert response.status_code < 500, (path, made, response.content[:300])


def every_path() -> list[str]:
    """A path for every URL pattern written with path() (the admin's few regular expressions
    left out), its parameters filled in with anything of their type."""
    from django.urls import URLPattern, URLResolver, get_resolver
    from django.urls.resolvers import RoutePattern

    def walk(patterns, prefix: str):
        for entry in patterns:
            if not isinstance(entry.pattern, RoutePattern):
                continue
            route = re.sub(
                r"<(?:(\w+):)?\w+>",
                lambda m: "1" if m.group(1) == "int" else "x",
                str(entry.pattern),
            )
            if isinstance(entry, URLResolver):
                yield from walk(entry.url_patterns, prefix + route)
            elif isinstance(entry, URLPattern):
                yield prefix + route

    return sorted(set(walk(get_resolver().url_patterns, "/")))


def test_every_door_refuses_what_cannot_be_stored_before_its_view():
    """Any URL, signed in or not, whoever's view it is: the rule is the request's, not a
    field's, so a page or an endpoint added later is covered the day it is."""
    paths = every_path()
    assert len(paths) > 60 and "/api/v1/auth/token/" in paths
    client = Client(raise_request_exception=False)
    for path in paths:
        answers = [
            client.post(path, {"text": "a\x00b"}),
            client.post(path, '{"text": "\\ud800"}', content_type="application/json"),
            client.get(path, {"q": "\x00"}),
        ]
        assert [a.status_code for a in answers] == [400, 400, 400], path


def test_a_nul_in_a_path_finds_nothing_on_every_door():
    """A path segment with a NUL names nothing any table can hold: 404, signed in or not (a
    lookup with it was a DataError on PostgreSQL: a discussion token, a rubric item's id)."""
    people = [
        None,
        UserFactory(is_staff=True, is_superuser=True),
        ExpertFactory(tier="senior").user,
    ]
    answers = []
    for user in people:
        client = page(user)
        for path in every_path():
            for held in (path.replace("/x/", "/a%00b/"), path.replace("/1/", "/a%00b/")):
                if held != path:
                    answers.append((client.get(held).status_code, held))
                    answers.append((client.post(held, {"a": "b"}).status_code, held))
    assert len(answers) > 100 and server_errors(answers) == [], server_errors(answers)[:5]
    assert {status for status, _ in answers} <= {404}


def test_an_id_that_is_no_number_finds_no_rubric_versions(admin_client):
    # Not the versions page (it was a ValueError, a 500): the admin's own "no such item".
    answer = admin_client.get("/admin/benchmark/rubricitem/x/versions/", follow=True)
    assert answer.status_code == 200 and answer.redirect_chain, answer.status_code
