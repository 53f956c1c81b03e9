"""The senior queue's pages: who may open them, and that they carry nothing blind-breaking."""

import pytest
from django.test import Client

from tests.builders.accounts import ExpertFactory
from tests.builders.adjudication import split_study
from tests.builders.studies import MODEL_NAME_MARKER

pytestmark = pytest.mark.django_db


def client_for(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_a_senior_sees_the_queue_with_waiting_counts_and_the_adjudication_shell():
    _, raters, senior = split_study(splits=["*"], name="pages")
    client = client_for(senior.user)
    home = client.get("/adjudicate/")
    assert home.status_code == 200
    html = home.content.decode()
    assert "/adjudicate/pages/" in html and "1 unit waiting for you" in html
    page = client.get("/adjudicate/pages/")
    assert page.status_code == 200
    text = page.content.decode()
    assert 'data-study="pages"' in text and "adjudicate.js" in text
    assert MODEL_NAME_MARKER not in text
    for rater in raters:
        assert rater.user.username not in text and rater.pseudonym not in text
    # The nav links seniors to the queue; other experts do not get the link.
    assert 'href="/adjudicate/"' in client.get("/").content.decode()
    assert 'href="/adjudicate/"' not in client_for(raters[0].user).get("/").content.decode()


def test_a_rater_who_is_also_senior_sees_no_unit_they_rated_in_the_count():
    senior_rater = ExpertFactory(tier="senior")
    split_study(splits=["*"], raters=[senior_rater, *ExpertFactory.create_batch(2)], name="own")
    html = client_for(senior_rater.user).get("/adjudicate/").content.decode()
    assert "0 units waiting for you" in html


def test_non_seniors_are_refused_and_other_studies_are_not_found():
    _, raters, _ = split_study(splits=["*"], name="deny")
    assert client_for(raters[0].user).get("/adjudicate/").status_code == 403
    assert client_for(raters[0].user).get("/adjudicate/deny/").status_code == 403
    outsider = ExpertFactory(tier="senior")  # a senior who is not in the study
    assert client_for(outsider.user).get("/adjudicate/deny/").status_code == 404
    assert Client().get("/adjudicate/deny/").status_code == 302  # to the login page
