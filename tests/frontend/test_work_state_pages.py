"""The home page and the workbench say which state holds for the expert's work in a study
(issue 12, defect i): each state its own true message, in Chinese and English, never a
"start" that leads nowhere, never Django's technical 404."""

import re

import pytest
from django.test import Client

from annotation import services
from tests.builders.accounts import ExpertFactory
from tests.builders.labels import all_labels
from tests.builders.studies import dataset_with_responses, open_study
from validation import services as study_services

pytestmark = pytest.mark.django_db

START = 'href="/rate/study-a/"'


def page(user, url: str, language: str = "en"):
    client = Client()
    client.force_login(user)
    return client.get(url, HTTP_ACCEPT_LANGUAGE=language)


def text(response) -> str:
    return re.sub(r"\s+", " ", response.content.decode())


def rate_one(expert, study) -> None:
    assignment = services.assignment_claim_next(user=expert.user, pool=study.pool)
    services.assignment_submit(assignment=assignment, labels=all_labels(assignment))


def shown_state(html: str) -> str | None:
    """The state whose message the page shows (not hidden), if any."""
    shown = re.findall(r'<div class="state-message" data-state="(\w+)">', html)
    assert len(shown) <= 1, shown
    return shown[0] if shown else None


def test_a_study_with_work_offers_start_and_the_workbench_loads_a_unit():
    expert = ExpertFactory()
    open_study(cases=2, experts=[expert])
    assert START in text(page(expert.user, "/"))
    bench = text(page(expert.user, "/rate/study-a/"))
    assert 'id="unit"' in bench and shown_state(bench) is None
    assert "workbench.js" in bench


def test_capacity_reached_is_said_on_the_home_page_and_the_workbench(settings):
    settings.DEBUG = True
    expert = ExpertFactory(daily_capacity=1)
    study = open_study(cases=3, experts=[expert])
    rate_one(expert, study)
    home = text(page(expert.user, "/"))
    assert START not in home
    assert "Today's limit reached" in home
    bench = page(expert.user, "/rate/study-a/")
    html = text(bench)
    assert bench.status_code == 200 and shown_state(html) == "capacity_reached"
    assert "You have reached today's limit" in html and "1 unit" in html
    assert "enough raters" not in html
    # No empty workbench under the message, and no script that would claim.
    assert 'id="unit"' not in html and "workbench.js" not in html
    zh = text(page(expert.user, "/rate/study-a/", "zh-hans"))
    assert "今天的上限" in zh and "明天" in zh
    assert "今日已达上限" in text(page(expert.user, "/", "zh-hans"))


def test_a_closed_studys_old_link_says_the_study_is_closed(settings):
    settings.DEBUG = True  # the technical 404 page only shows with DEBUG on
    expert = ExpertFactory()
    study = open_study(cases=2, experts=[expert])
    study_services.study_close(study=study)
    bench = page(expert.user, "/rate/study-a/")
    html = text(bench)
    assert bench.status_code == 200 and shown_state(html) == "study_closed"
    assert "This study is closed" in html and "Using the URLconf" not in html
    assert 'id="unit"' not in html
    assert START not in text(page(expert.user, "/"))
    zh = text(page(expert.user, "/rate/study-a/", "zh-hans"))
    assert "本研究已关闭" in zh


def test_nothing_left_for_you_is_said_where_it_holds():
    expert = ExpertFactory()
    study = open_study(cases=1, experts=[expert])
    rate_one(expert, study)
    home = text(page(expert.user, "/"))
    assert START not in home and "Nothing left for you right now" in home
    html = text(page(expert.user, "/rate/study-a/"))
    assert shown_state(html) == "nothing_left"
    assert "Nothing left for you in this study" in html


def test_a_study_you_are_not_part_of_gets_a_plain_404_page(settings):
    settings.DEBUG = True
    member, outsider = ExpertFactory.create_batch(2)
    open_study(cases=1, experts=[member])
    for user, url in ((outsider.user, "/rate/study-a/"), (member.user, "/rate/no-such/")):
        response = page(user, url)
        html = text(response)
        assert response.status_code == 404 and "Using the URLconf" not in html
        assert shown_state(html) == "not_enrolled"
        assert "You are not part of this study" in html
    zh = text(page(outsider.user, "/rate/study-a/", "zh-hans"))
    assert "你不在此研究中" in zh


def test_a_draft_study_is_not_open_yet_for_its_experts():
    expert = ExpertFactory()
    dataset, models = dataset_with_responses(cases=1)
    study_services.study_create(
        name="later", dataset=dataset, models=models, fraction=1.0, seed=1, experts=[expert]
    )
    response = page(expert.user, "/rate/later/")
    html = text(response)
    assert response.status_code == 200 and shown_state(html) == "not_open_yet"
    assert "This study is not open yet" in html
    assert "尚未开放" in text(page(expert.user, "/rate/later/", "zh-hans"))


def test_a_ready_workbench_carries_every_message_the_api_can_answer_with_hidden():
    # After a submit the claim may find the daily limit reached, or the study closed: the
    # script shows the message of the state the API names, so each must be on the page.
    expert = ExpertFactory()
    open_study(cases=2, experts=[expert])
    html = text(page(expert.user, "/rate/study-a/"))
    hidden = set(re.findall(r'<div class="state-message" data-state="(\w+)" hidden>', html))
    assert hidden == {
        "capacity_reached", "study_closed", "nothing_left", "not_open_yet", "not_enrolled"
    }  # fmt: skip


def test_state_messages_reveal_no_study_statistics():
    # Blindness: a message names the expert's own situation only, never counts of the study.
    # (The workbench's progress line above it shows the team's totals on purpose: counts of
    # the whole study, never of a unit; tests/annotation/test_progress.py.)
    expert = ExpertFactory(daily_capacity=1)
    study = open_study(cases=3, experts=[expert])
    rate_one(expert, study)
    for language in ("en", "zh-hans"):
        for url in ("/", "/rate/study-a/"):
            html = text(page(expert.user, url, language))
            html = re.sub(r'<aside id="study-progress".*?</aside>', " ", html)
            numbers = set(re.findall(r"\b\d+\b", re.sub(r"<[^>]+>", " ", html)))
            # Only the expert's own daily limit (1) may appear as a number.
            assert numbers <= {"1"}, (url, language, numbers)
