import pytest
from django.test import Client

from tests.builders.accounts import ExpertFactory, UserFactory
from tests.builders.studies import open_study

pytestmark = pytest.mark.django_db


def logged_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


@pytest.mark.parametrize("url", ["/", "/rate/study-a/", "/done/"])
def test_anonymous_visitors_are_sent_to_the_login_page(url):
    response = Client().get(url)
    assert response.status_code == 302 and response["Location"].startswith("/login/")


def test_every_page_has_the_platforms_icon_and_favicon_ico_is_it():
    icon = '<link rel="icon" href="/static/frontend/favicon.svg" type="image/svg+xml">'
    for url in ("/login/", "/admin/login/"):
        assert icon in Client().get(url).content.decode(), url
    response = Client().get("/favicon.ico")  # what a browser asks for without the link
    assert response.status_code == 302 and response["Location"] == "/static/frontend/favicon.svg"
    served = Client().get(response["Location"])  # whitenoise, from the app's folder
    assert served.status_code == 200 and served["Content-Type"] == "image/svg+xml"


def test_an_expert_cannot_open_admin_pages():
    expert = ExpertFactory()
    client = logged_in(expert.user)
    for url in ["/admin/", "/admin/validation/study/", "/admin/annotation/submission/"]:
        response = client.get(url)
        assert response.status_code == 302 and "/admin/login/" in response["Location"], url


def test_workbench_only_for_studies_the_expert_is_part_of():
    member, outsider = ExpertFactory.create_batch(2)
    open_study(cases=1, experts=[member])
    assert logged_in(member.user).get("/rate/study-a/").status_code == 200
    assert logged_in(outsider.user).get("/rate/study-a/").status_code == 404
    home = logged_in(outsider.user).get("/").content.decode()
    assert "study-a" not in home


def test_home_lists_the_experts_open_studies_and_a_non_expert_gets_no_workbench():
    expert = ExpertFactory()
    open_study(cases=1, experts=[expert])
    assert "/rate/study-a/" in logged_in(expert.user).get("/").content.decode()
    assert logged_in(UserFactory()).get("/rate/study-a/").status_code == 403


def test_login_page_logs_an_expert_in():
    expert = ExpertFactory(user__username="pat")
    response = Client().post(
        "/login/", {"username": "pat", "password": "test-password-123"}, follow=True
    )
    assert response.status_code == 200 and response.context["user"] == expert.user


def test_completed_work_comes_in_pages_newest_first(monkeypatch):
    from annotation import selectors, services
    from tests.builders.labels import all_labels

    monkeypatch.setattr(selectors, "COMPLETED_PAGE_SIZE", 2)
    expert = ExpertFactory()
    study = open_study(cases=5, experts=[expert])
    tokens = []
    while assignment := services.assignment_claim_next(user=expert.user, pool=study.pool):
        services.assignment_submit(assignment=assignment, labels=all_labels(assignment))
        tokens.append(assignment.unit.token)
    assert len(tokens) == 5
    client = logged_in(expert.user)
    newest_first = tokens[::-1]
    # A bad page number is the first page, one past the end the last.
    expected = {"1": newest_first[:2], "2": newest_first[2:4], "3": newest_first[4:],
                "x": newest_first[:2], "99": newest_first[4:]}  # fmt: skip
    pages = {n: client.get(f"/done/?page={n}").content.decode() for n in expected}
    for number, wanted in expected.items():
        page = pages[number]
        assert {t for t in tokens if t in page} == set(wanted), number
        assert sorted(wanted, key=page.index) == wanted  # newest first
    assert "Page 2 of 3" in pages["2"]
    assert 'href="?page=1"' in pages["2"] and 'href="?page=3"' in pages["2"]
    assert 'rel="prev"' not in pages["1"] and 'rel="next"' not in pages["3"]
