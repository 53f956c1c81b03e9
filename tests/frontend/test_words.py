"""Words shown to people, not raw keys, ISO stamps or Django's defaults (issue 15, "Words").

Pages are read in Chinese (the product's default language) and, where it matters, in English.
"""

import re
from datetime import UTC, datetime

import pytest
from django.test import Client

from annotation.models import Pool
from tests.builders.accounts import ExpertFactory, UserFactory
from tests.builders.leaderboards import judged_dataset
from tests.builders.studies import open_study, rated_study
from validation.models import Study

pytestmark = pytest.mark.django_db

ZH = {"HTTP_ACCEPT_LANGUAGE": "zh-hans"}
EN = {"HTTP_ACCEPT_LANGUAGE": "en"}
ISO = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d")


@pytest.fixture
def staff_client():
    client = Client()
    client.force_login(UserFactory(is_staff=True, is_superuser=True))
    return client


def test_the_leaderboard_names_the_decay_columns_in_words(staff_client):
    judged_dataset(models=2)
    zh = staff_client.get("/leaderboard/", **ZH).content.decode()
    en = staff_client.get("/leaderboard/", **EN).content.decode()
    for page in (zh, en):
        assert "hard_decay" not in page
    assert "衰减（分）= 普通 − 困难" in zh
    assert "Decay (points) = normal − hard" in en


@pytest.mark.parametrize(("headers", "header"), [(ZH, "HeartBench 管理后台"),
                                                  (EN, "HeartBench administration")])  # fmt: skip
def test_the_study_report_page_carries_the_platform_name(staff_client, headers, header):
    study = rated_study(cases=2, models=2)
    page = staff_client.get(f"/admin/studies/{study.name}/report/", **headers).content.decode()
    assert "Django" not in page
    assert f'<a href="/admin/">{header}</a>' in page
    assert re.search(rf"<title>[^<]*{header}</title>", page)


def test_the_study_report_shows_closed_at_to_the_minute_in_the_platform_time(
    staff_client, settings
):
    settings.TIME_ZONE = "Asia/Shanghai"
    study = rated_study(cases=2, models=2)
    Study.objects.filter(pk=study.pk).update(closed_at=datetime(2026, 3, 4, 20, 5, 6, 789, UTC))
    for headers, words in ((ZH, "，关闭于 2026-03-05 04:05"), (EN, ", closed 2026-03-05 04:05")):
        page = staff_client.get(f"/admin/studies/{study.name}/report/", **headers).content.decode()
        assert words in page
        assert not ISO.search(page.replace('datetime="', ""))


def test_the_runs_dashboard_shows_when_it_was_refreshed_to_the_minute(staff_client):
    page = staff_client.get("/admin/dashboard/runs/", **ZH)
    assert page.status_code == 200
    shown = re.search(r'<time id="runs-updated"[^>]*>([^<]*)</time>', page.content.decode())
    assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d", shown.group(1))
    data = staff_client.get("/admin/dashboard/runs.json").json()
    assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d", data["at_label"])


@pytest.mark.parametrize("which", ["pool", "study"])
def test_delete_confirmation_names_the_relations_in_words(staff_client, which):
    experts = ExpertFactory.create_batch(2, display_name="专家甲")
    if which == "pool":  # a pool of its own: a study's pool goes only with its study
        pool = Pool.objects.create(name="spare-pool")
        pool.experts.set(experts)
        url = f"/admin/annotation/pool/{pool.pk}/delete/"
    else:
        study = open_study(cases=1, experts=experts)
        url = f"/admin/validation/study/{study.pk}/delete/"
    for headers in (ZH, EN):
        page = staff_client.get(url, **headers).content.decode()
        assert page.count("<li>") >= 2
        assert " object (" not in page
        assert "_experts" not in page and "_models_under_test" not in page
        assert "relationship" not in page and "关系" not in page
    zh = staff_client.get(url, **ZH).content.decode()
    if which == "pool":
        assert "任务池成员: 专家甲" in zh
    else:
        assert "研究中的模型: " in zh
