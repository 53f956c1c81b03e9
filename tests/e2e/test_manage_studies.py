"""The study pages in Chromium, in both languages: the form, a refused choice said beside its
field, the draft's preview, the open study's enrolment and close. No page scrolls sideways at
1920, 1366 or 390 px; axe-core finds nothing of any impact and every control shows its focus.
Screenshots ``manage-study-<state>-<width>-<language>.png``."""

import pytest
from django.contrib.auth import get_user_model

from tests.builders.accounts import ExpertFactory
from tests.builders.browser import AXE
from tests.builders.datasets import JudgeFactory, JudgeRunFactory
from tests.builders.studies import dataset_with_responses
from tests.conftest import require
from tests.e2e.widths import readable_at_every_width
from validation import selectors

PASSWORD = "pw-admin-study-1"
WORDS = {
    "refused": {"en": "The study was not created", "zh-hans": "研究未创建"},
    "sample": {"en": "24 units", "zh-hans": "24 个单元"},
    "never": {"en": "24 never rated", "zh-hans": "24 个从未标注"},
}


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_the_admin_creates_previews_opens_and_sees_how_to_close_a_study(
    live_server, page_in, artifacts
):
    require(AXE.exists(), f"needs axe-core at {AXE}: run `npm ci` (make test does)")
    page, lang = page_in, page_in.language
    dataset, models = dataset_with_responses(cases=12, models=2)
    judge = JudgeFactory(name="judge-x")
    for model in models:
        JudgeRunFactory(judge=judge, model=model, dataset=dataset)
    ExpertFactory.create_batch(3)
    get_user_model().objects.create_superuser("admin-study", "s@example.org", PASSWORD)
    page.goto(f"{live_server.url}/admin/login/?next=/admin/dashboard/")
    page.fill("#id_username", "admin-study")
    page.fill("#id_password", PASSWORD)
    page.click("input[type=submit]")
    page.click("#new-study-link")
    problems = readable_at_every_width(
        page, artifacts, "manage-study-new", presses=12, every_impact=True
    )

    page.fill("#study-name", "bad/name")
    page.click("#study-new button[type=submit]")
    assert WORDS["refused"][lang] in page.inner_text(".errornote")
    assert page.locator("#study-new .error").count() >= 1
    problems += readable_at_every_width(
        page, artifacts, "manage-study-refused", presses=12, every_impact=True
    )

    page.fill("#study-name", f"pilot-{lang}")
    for model in models:
        page.check(f"input[name=models][value='{model.name}']")
    page.check("input[name=judge_runs][value=judge-x]")
    page.fill("#study-fraction", "1")
    page.click("#study-new button[type=submit]")
    page.wait_for_selector("#draft")
    assert WORDS["sample"][lang] in page.inner_text("#draft")
    problems += readable_at_every_width(
        page, artifacts, "manage-study-draft", presses=12, every_impact=True
    )

    page.click("#open-form button")
    page.wait_for_selector("#close-form")
    assert WORDS["never"][lang] in page.inner_text("#close")
    assert selectors.study_get(name=f"pilot-{lang}").pool.status == "open"
    problems += readable_at_every_width(
        page, artifacts, "manage-study-open", presses=12, every_impact=True
    )
    assert not problems, "\n".join(problems)
