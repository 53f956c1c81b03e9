"""Drive the workbench in headless Chromium against the live server, keyboard only."""

import pytest

from annotation.models import Label, Submission
from tests.builders.accounts import PASSWORD, ExpertFactory
from tests.builders.studies import open_study


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_expert_rates_a_unit_with_the_keyboard_and_gets_the_next(
    live_server, browser_page, artifacts
):
    expert = ExpertFactory(user__username="rater-e2e")
    open_study(cases=2, experts=[expert], name="e2e-study", show_ability=True)
    page = browser_page

    page.goto(f"{live_server.url}/rate/e2e-study/")
    assert "/login/" in page.url
    # Keyboard from the first field: the login page focuses it, once it has loaded.
    page.wait_for_function("document.activeElement && document.activeElement.name === 'username'")
    page.keyboard.type("rater-e2e")
    page.keyboard.press("Tab")
    page.keyboard.type(PASSWORD)
    page.keyboard.press("Enter")
    page.wait_for_selector("#criteria li")
    assert "/rate/e2e-study/" in page.url

    first_token = page.inner_text("#unit-token")
    assert "用户" in page.inner_text("#dialogue")
    assert "最近工作压力很大" in page.inner_text("#dialogue")
    assert "Enter" in page.text_content("#help")  # the keyboard help, opened with ?
    lease_shown = r"/^\d\d:\d\d$/.test(document.getElementById('lease-timer').textContent)"
    page.wait_for_function(lease_shown)
    page.screenshot(path=str(artifacts / "workbench-unit.png"), full_page=True)

    count = page.locator("#criteria li").count()
    page.keyboard.press("n")
    page.keyboard.type("语气温暖")
    page.keyboard.press("Escape")
    for index in range(count):
        page.keyboard.press("1" if index % 2 == 0 else "0")
    page.keyboard.press("k")
    page.keyboard.press("j")
    assert page.inner_text("#progress") == f"已标注 {count} / {count} 项"
    page.wait_for_selector("#saved:not(:empty)")  # "Draft saved …" in either language
    page.screenshot(path=str(artifacts / "workbench-complete.png"), full_page=True)
    page.keyboard.press("Enter")

    page.wait_for_function(f"document.getElementById('unit-token').textContent !== '{first_token}'")
    page.wait_for_selector("#criteria li")
    assert page.locator("#criteria li.hit, #criteria li.miss").count() == 0
    page.screenshot(path=str(artifacts / "workbench-next.png"), full_page=True)

    submission = Submission.objects.get(expert=expert)
    assert submission.unit.token == first_token
    labels = Label.objects.filter(submission=submission)
    assert labels.count() == count
    assert labels.filter(hit=True).count() == (count + 1) // 2
    assert labels.filter(note="语气温暖").count() == 1

    page.goto(f"{live_server.url}/done/")
    assert first_token in page.inner_text("table.done")
