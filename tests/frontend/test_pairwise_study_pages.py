"""Every page and API an admin or an expert can open on a pairwise study answers (no 500, no
rubric figure where a pair has none): the report page shows the pairwise report in both
languages, downloads in every format, and the rubric-only links are not offered."""

import pytest
from django.db.models import Sum
from rest_framework.test import APIClient

from annotation.models import Assignment, PeerAgreement, Submission
from benchmark.llm.fake_server import FakeLLM
from tests.builders.accounts import ExpertFactory
from tests.builders.adjudication import api_for
from tests.builders.pairwise import (
    TRIO,
    answered_by,
    choose_all,
    draw,
    judge_pairwise,
    pairwise_study,
)

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("few_resamples")]


@pytest.fixture
def study():
    answered_by(names=list(TRIO), cases=2, texts=lambda i, n: f"{TRIO[n]}（{i}）", name="pw")
    draw("set", "--dataset", "pw", "--models", "ann,bob,cat")
    raters = [ExpertFactory() for _ in range(3)]
    found = pairwise_study()
    choose_all(raters, lambda pair, index: "a" if index else "tie")
    with FakeLLM() as fake:
        judge_pairwise(fake, "set")
    return found, raters


ADMIN_PAGES = [
    "/admin/dashboard/",
    "/admin/dashboard/studies/pairs/",
    "/admin/studies/pairs/report/",
    "/admin/studies/pairs/report/?format=json",
    "/admin/studies/pairs/report/?format=csv",
    "/admin/studies/pairs/report/?format=html",
    "/admin/studies/pairs/export/?format=csv",
    "/admin/studies/pairs/export/?format=jsonl",
    "/admin/validation/study/",
    "/admin/validation/studyunit/",
    "/admin/validation/pairwisegold/",
    "/admin/annotation/pool/",
    "/admin/annotation/assignment/",
    "/admin/annotation/submission/",
]
API = [
    "/api/v1/admin/studies/",
    "/api/v1/admin/studies/pairs/",
    "/api/v1/admin/studies/pairs/progress/",
    "/api/v1/admin/studies/pairs/export/",
]


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_every_admin_page_of_a_pairwise_study_answers(admin_client, study, language):
    admin_client.cookies["django_language"] = language
    found, _ = study
    unit = found.units.first()
    pages = [
        *ADMIN_PAGES,
        f"/admin/validation/study/{found.pk}/change/",
        f"/admin/validation/studyunit/{unit.pk}/change/",
        f"/admin/annotation/submission/{Submission.objects.first().pk}/change/",
        f"/admin/annotation/assignment/{Assignment.objects.first().pk}/change/",
        f"/admin/annotation/pool/{found.pool_id}/change/",
    ]
    for url in pages:
        response = admin_client.get(url)
        assert response.status_code == 200, (url, response.status_code)
    for url in ("/admin/studies/pairs/disagreements/", "/admin/studies/pairs/disagreements.csv"):
        sent = admin_client.get(url, follow=True)
        assert sent.redirect_chain == [("/admin/studies/pairs/report/", 302)], url
    assert ("no criteria to compare" if language == "en" else "没有可逐项比较的评分标准") in (
        sent.content.decode()
    )
    body = admin_client.get("/admin/studies/pairs/report/").content.decode()
    assert ("Pairwise study" if language == "en" else "成对比较研究") in body
    assert "fake-judge" in body and "Kendall" in body
    assert "disagreements-link" not in body
    assert ("Every choice, per pair:" if language == "en" else "每次选择，按配对：") in body


def test_the_dashboard_shows_each_experts_agreement_on_the_pairs(admin_client, study):
    # Every pair: rater 0 chose a tie, raters 1 and 2 the stored a. Each choice is compared
    # with the other two: rater 0 agrees with neither (0 of 2), the others with one (1 of 2).
    _, raters = study
    rows = PeerAgreement.objects.values_list("expert_id").annotate(
        agreed=Sum("agreed"), compared=Sum("compared")
    )
    assert dict((e, (a, c)) for e, a, c in rows) == {
        raters[0].pk: (0, 12),
        raters[1].pk: (6, 12),
        raters[2].pk: (6, 12),
    }
    body = admin_client.get("/admin/dashboard/studies/pairs/").content.decode()
    assert "choice on the same pair" in body and 'id="ability-table"' not in body
    assert "0.500" in body and "disagreements-link" not in body


def test_the_admin_api_serves_a_pairwise_study(admin_user, study):
    client = APIClient()
    client.force_authenticate(admin_user)
    for url in API:
        assert client.get(url).status_code == 200, url
    report = client.get("/api/v1/admin/studies/pairs/report/")
    assert report.status_code == 200 and report.json()["question_type"] == "pairwise"


def test_every_expert_page_of_a_pairwise_study_answers_blind(client, study):
    _, raters = study
    client.force_login(raters[0].user)
    for url in ("/", "/rate/pairs/", "/done/", "/profile/"):
        response = client.get(url)
        assert response.status_code == 200, url
        body = response.content.decode()
        assert not any(f">{name}<" in body for name in TRIO), url
    done = api_for(raters[0]).get("/api/v1/work/rating/completed/?study=pairs")
    assert done.status_code == 200
    first = Assignment.objects.filter(expert=raters[0], status="submitted").first()
    page = client.get(f"/done/{first.public_id}/")
    assert page.status_code == 200 and "ann" not in page.content.decode()


def test_the_senior_pages_of_a_pairwise_study_answer(client, study):
    senior = ExpertFactory(tier="senior")
    study[0].pool.experts.add(senior)
    client.force_login(senior.user)
    for url in ("/adjudicate/", "/adjudicate/pairs/"):
        assert client.get(url).status_code == 200, url
