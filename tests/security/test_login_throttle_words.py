"""The throttle's 429 speaks the request's language: JSON for the API, a small page for people."""

import pytest
from django.test import Client

from tests.builders.accounts import UserFactory

pytestmark = pytest.mark.django_db


def blocked(settings, door: str, **headers):
    settings.HEARTBENCH_LOGIN_THROTTLE = {"per_user": 1, "per_address": 100, "window": 60}
    user = UserFactory(is_staff=True)
    client = Client(**headers)
    client.post(door, {"username": user.username, "password": "not-it"})
    response = client.post(door, {"username": user.username, "password": "not-it"})
    assert response.status_code == 429 and response["Retry-After"] == "60"
    return response


@pytest.mark.parametrize("door", ["/login/", "/admin/login/"])
@pytest.mark.parametrize(
    ("headers", "lang", "words"),
    [
        ({"HTTP_ACCEPT_LANGUAGE": "zh-hans"}, "zh-hans", "登录失败次数过多"),
        ({"HTTP_ACCEPT_LANGUAGE": "en"}, "en", "Too many failed logins"),
    ],
)
def test_a_page_login_gets_a_page_in_its_language(settings, door, headers, lang, words):
    response = blocked(settings, door, **headers)
    assert response["Content-Type"].startswith("text/html")
    page = response.content.decode()
    assert f'<html lang="{lang}">' in page
    assert words in page and "HeartBench" in page


def test_the_language_cookie_decides_too(settings):
    client_headers = {"HTTP_COOKIE": "django_language=zh-hans", "HTTP_ACCEPT_LANGUAGE": "en"}
    assert "登录失败次数过多" in blocked(settings, "/login/", **client_headers).content.decode()


@pytest.mark.parametrize(
    ("headers", "words"),
    [({"HTTP_ACCEPT_LANGUAGE": "zh-hans"}, "登录失败次数过多"),
     ({"HTTP_ACCEPT_LANGUAGE": "en"}, "Too many failed logins")],
)  # fmt: skip
def test_the_api_token_endpoint_gets_a_drf_error(settings, headers, words):
    response = blocked(settings, "/api/v1/auth/token/", **headers)
    assert response["Content-Type"].startswith("application/json")
    assert set(response.json()) == {"detail"} and words in response.json()["detail"]
