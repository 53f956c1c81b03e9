"""One address cannot lock out everyone behind it (issue 40, item 7).

An office behind one NAT shares an address. Failures there count per user name as before (5 in
the window lock that name), but for the address only distinct user names count, and past the
address's limit it is slowed, not locked: each attempt waits 1, 2, 4, ... seconds after the
address's last failure, at most ``ADDRESS_WAIT_CAP``. A colleague with the right password gets
in after at most that wait; a guesser trying many names gets a few tries a minute.
"""

import pytest
from django.test import Client

from config import login_throttle
from tests.builders.accounts import PASSWORD, UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def clock(monkeypatch):
    now = [1_000_000.0]
    monkeypatch.setattr(login_throttle, "_now", lambda: now[0])
    return now


def login(client: Client, username: str, password: str, door: str = "/login/") -> int:
    return client.post(door, {"username": username, "password": password}).status_code


@pytest.mark.parametrize("door", ["/login/", "/api/v1/auth/token/"])
def test_thirty_failed_names_from_one_address_leave_a_colleague_a_short_wait(settings, clock, door):
    settings.HEARTBENCH_LOGIN_THROTTLE = {"per_user": 5, "per_address": 30, "window": 300}
    client = Client()
    failure = 200 if door == "/login/" else 400
    assert {login(client, f"guess-{i}", "x", door) for i in range(30)} == {failure}
    colleague = UserFactory()
    answer = client.post(door, {"username": colleague.username, "password": PASSWORD})
    waited = 0
    while answer.status_code == 429:
        wait = int(answer["Retry-After"])
        assert 0 < wait <= login_throttle.ADDRESS_WAIT_CAP
        waited += wait
        clock[0] += wait
        answer = client.post(door, {"username": colleague.username, "password": PASSWORD})
    assert answer.status_code in (200, 302) and waited <= login_throttle.ADDRESS_WAIT_CAP


def test_one_name_mistyped_again_and_again_counts_once_for_the_address(settings, clock):
    settings.HEARTBENCH_LOGIN_THROTTLE = {"per_user": 5, "per_address": 2, "window": 300}
    client = Client()
    clumsy, colleague = UserFactory(), UserFactory()
    assert [login(client, clumsy.username, "x") for _ in range(6)] == [200] * 5 + [429]
    # The clumsy name is locked for the window; its colleague is not slowed at all.
    assert login(client, colleague.username, PASSWORD) == 302


def test_a_guesser_trying_new_names_gets_a_few_tries_a_minute(settings, clock):
    settings.HEARTBENCH_LOGIN_THROTTLE = {"per_user": 5, "per_address": 30, "window": 300}
    client = Client()
    for i in range(30):
        login(client, f"guess-{i}", "x")
    tried = 0
    for second in range(120):  # one new name a second for two minutes
        clock[0] += 1
        if login(client, f"more-{second}", "x") != 429:
            tried += 1
    assert tried <= 10, tried


def test_the_per_user_limit_still_locks_that_name_for_the_window(settings, clock):
    settings.HEARTBENCH_LOGIN_THROTTLE = {"per_user": 3, "per_address": 30, "window": 300}
    client = Client()
    user = UserFactory()
    assert [login(client, user.username, "x") for _ in range(3)] == [200] * 3
    locked = client.post("/login/", {"username": user.username, "password": PASSWORD})
    assert locked.status_code == 429 and locked["Retry-After"] == "300"


def test_the_page_says_how_many_seconds_a_slowed_address_waits(settings, clock):
    settings.HEARTBENCH_LOGIN_THROTTLE = {"per_user": 5, "per_address": 2, "window": 300}
    client = Client(HTTP_ACCEPT_LANGUAGE="en")
    for name in ("a", "b", "c"):
        login(client, name, "x")
    slowed = client.post("/login/", {"username": "d", "password": "x"})
    wait = int(slowed["Retry-After"])
    assert slowed.status_code == 429 and wait < 60
    assert f"in {wait} second" in slowed.content.decode()
    chinese = Client(HTTP_ACCEPT_LANGUAGE="zh-hans").post("/login/", {"username": "e"})
    assert chinese.status_code == 429 and "秒后可以再次登录" in chinese.content.decode()
