"""Login throttling keys on the user name whatever the body's type (issue 12, defect b).

The token endpoint takes form-encoded, multipart and JSON bodies; the throttle must count
failures per (address, user name) and per address for each of them, and a body it cannot read
must neither crash the request nor slip past the counts.
"""

import json
from urllib.parse import urlencode

import pytest
from django.test import Client

from tests.builders.accounts import PASSWORD, UserFactory

pytestmark = pytest.mark.django_db

DOOR = "/api/v1/auth/token/"


def post(client: Client, body: dict, kind: str):
    if kind == "json":
        return client.post(DOOR, json.dumps(body), content_type="application/json")
    if kind == "form":
        return client.post(DOOR, urlencode(body), content_type="application/x-www-form-urlencoded")
    return client.post(DOOR, body)  # multipart, the test client's default


@pytest.mark.parametrize("kind", ["json", "form", "multipart"])
def test_failures_of_one_user_name_never_lock_out_another(settings, kind):
    settings.HEARTBENCH_LOGIN_THROTTLE = {"per_user": 5, "per_address": 100, "window": 60}
    guessed, colleague = UserFactory(), UserFactory()
    client = Client()
    wrong = {"username": guessed.username, "password": "not-it"}
    assert [post(client, wrong, kind).status_code for _ in range(5)] == [400] * 5
    # The colleague behind the same address logs in with the right password...
    right = {"username": colleague.username, "password": PASSWORD}
    assert post(client, right, kind).status_code == 200
    # ... and that success did not reset the count of the name being guessed.
    assert (
        post(client, {"username": guessed.username, "password": PASSWORD}, kind).status_code == 429
    )


def test_a_json_success_clears_only_its_own_count(settings):
    settings.HEARTBENCH_LOGIN_THROTTLE = {"per_user": 3, "per_address": 100, "window": 60}
    alice, bob = UserFactory(), UserFactory()
    client = Client()
    for user in (alice, bob):
        for _ in range(2):
            assert (
                post(client, {"username": user.username, "password": "x"}, "json").status_code
                == 400
            )
    assert (
        post(client, {"username": alice.username, "password": PASSWORD}, "json").status_code == 200
    )
    # Alice's success cleared Alice's count only: Bob's third failure locks Bob out.
    assert post(client, {"username": bob.username, "password": "x"}, "json").status_code == 400
    assert post(client, {"username": bob.username, "password": PASSWORD}, "json").status_code == 429
    assert post(client, {"username": alice.username, "password": "x"}, "json").status_code == 400


def test_a_numeric_json_user_name_is_counted_as_the_name_it_becomes(settings):
    # DRF's CharField turns 12345 into "12345"; the throttle must count both spellings together.
    settings.HEARTBENCH_LOGIN_THROTTLE = {"per_user": 2, "per_address": 100, "window": 60}
    user = UserFactory(username="12345")
    client = Client()
    assert post(client, {"username": 12345, "password": "x"}, "json").status_code == 400
    assert post(client, {"username": "12345", "password": "x"}, "json").status_code == 400
    assert (
        post(client, {"username": user.username, "password": PASSWORD}, "json").status_code == 429
    )


@pytest.mark.parametrize(
    ("body", "content_type"),
    [
        ("{not json", "application/json"),
        ("[1, 2]", "application/json"),
        ('"alice"', "application/json"),
        ("\xff\xfe garbage", "application/json"),
        ('{"username": ["a"], "password": {"x": 1}}', "application/json"),
        ("--x\r\nbroken", "multipart/form-data; boundary=x"),
        ("--x\r\nbroken", "multipart/form-data"),
    ],
)
def test_a_body_that_cannot_be_read_is_refused_and_counted(settings, body, content_type):
    # Counted under the empty user name, which its limit locks as it locks any name.
    settings.HEARTBENCH_LOGIN_THROTTLE = {"per_user": 2, "per_address": 100, "window": 60}
    client = Client(raise_request_exception=False)
    codes = [client.post(DOOR, body, content_type=content_type).status_code for _ in range(3)]
    assert codes[:2] == [400, 400], codes
    assert codes[2] == 429
    # A colleague behind the same address is not locked out by them (issue 40, item 7).
    user = UserFactory()
    right = {"username": user.username, "password": PASSWORD}
    assert post(client, right, "json").status_code == 200
