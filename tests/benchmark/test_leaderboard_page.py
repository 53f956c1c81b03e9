"""The admin's leaderboard link (/admin/leaderboard/): staff land on the one leaderboard page."""

import io

import pytest
from django.core.management import call_command

pytestmark = pytest.mark.django_db


@pytest.fixture
def demo():
    call_command("load_demo", stdout=io.StringIO())


def test_admin_sees_the_leaderboard_and_the_link_from_datasets(demo, admin_client):
    response = admin_client.get("/admin/leaderboard/?split=hard&scoring=upstream", follow=True)
    assert response.redirect_chain == [("/leaderboard/?split=hard&scoring=upstream", 302)]
    page = response.content.decode()
    assert "DEMO DATA" in page and "demo-warm-counsellor" in page and "11/12" not in page
    assert "Emotion" in page and "Emotional coping" in page
    listing = admin_client.get("/admin/benchmark/dataset/").content.decode()
    assert "/admin/leaderboard/?dataset=demo:v1" in listing


def test_paper_scoring_by_default_with_coverage(demo, admin_client):
    page = admin_client.get("/admin/leaderboard/", follow=True).content.decode()
    assert "11/12" in page and "a hit on any catastrophic criterion zeroes the case" in page


def test_non_staff_are_sent_to_login(demo, client, django_user_model):
    assert client.get("/admin/leaderboard/").status_code == 302
    django_user_model.objects.create_user(username="expert", password="pw-expert-1")
    client.login(username="expert", password="pw-expert-1")
    response = client.get("/admin/leaderboard/")
    assert response.status_code == 302 and response["Location"].startswith("/admin/login/")


def test_unknown_parameters_are_not_found(demo, admin_client):
    assert admin_client.get("/admin/leaderboard/?split=nope", follow=True).status_code == 404
    assert admin_client.get("/admin/leaderboard/?dataset=missing", follow=True).status_code == 404
