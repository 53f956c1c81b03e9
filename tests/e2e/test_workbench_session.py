"""Issue 39, the workbench when things go wrong or right: a lost session keeps the marks and
a login comes back to the unit where the autosave then goes through; a second tab on a
submitted unit says so in one translated sentence beside what was submitted; "Submitted ✓"
stays until the expert acts; the next unit opens at its beginning on a phone.
"""

import re

import pytest

from annotation.models import Assignment
from benchmark.models import Response
from tests.builders.accounts import PASSWORD, ExpertFactory
from tests.builders.browser import LONG_RESPONSE
from tests.builders.studies import open_study
from tests.e2e.conftest import LOCALES, login, shoot

LATIN = re.compile(r"[A-Za-z]{3,}")


def phone(chromium, language, *, width=390, height=844):
    context = chromium.new_context(
        viewport={"width": width, "height": height},
        locale=LOCALES[language],
        has_touch=width < 600,
    )
    page = context.new_page()
    page.language = language
    return page


def rate_page(chromium, live_server, language, *, cases=1, width=1366, height=768):
    expert = ExpertFactory(user__username=f"rater-{language}")
    study = open_study(cases=cases, experts=[expert], name=f"session-{language}")
    Response.objects.update(text=LONG_RESPONSE)
    page = phone(chromium, language, width=width, height=height)
    login(page, live_server, expert.user.username, PASSWORD, next_path=f"/rate/{study.name}/")
    page.wait_for_selector("#criteria li")
    return expert, study, page


def marks(page) -> list[str | None]:
    return page.locator("#criteria li .hit-button").evaluate_all(
        "els => els.map(b => b.getAttribute('aria-pressed'))"
    )


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_a_lost_session_keeps_the_marks_and_a_login_comes_back_to_the_unit(
    live_server, chromium, language, artifacts
):
    expert, study, page = rate_page(chromium, live_server, language)
    items = page.locator("#criteria li")
    items.nth(0).locator(".hit-button").click()
    page.wait_for_selector("#saved:not(:empty)")
    page.context.clear_cookies()  # the session is gone (expired, logged out elsewhere)
    items.nth(1).locator(".miss-button").click()

    page.wait_for_selector("#signed-out:visible")
    assert "401" not in page.inner_text("main") and "credentials" not in page.inner_text("main")
    assert marks(page)[:2] == ["true", "false"]  # still in the page
    assert items.nth(1).locator(".miss-button").get_attribute("aria-pressed") == "true"
    shoot(page, artifacts, "workbench-signed-out")
    page.click("#signed-out a")
    page.fill("input[name=username]", expert.user.username)
    page.fill("input[name=password]", PASSWORD)
    page.press("input[name=password]", "Enter")
    page.wait_for_selector("#criteria li")
    assert page.url.endswith(f"/rate/{study.name}/")
    assert marks(page)[:2] == ["true", "false"]
    page.wait_for_selector("#saved:not(:empty)")  # the autosave goes through
    assignment = Assignment.objects.get(expert=expert)
    assert sorted(v["hit"] for v in assignment.draft_labels.values() if v["hit"] is not None) == [
        False,
        True,
    ]


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_a_second_tab_on_a_submitted_unit_says_so_beside_what_was_submitted(
    live_server, chromium, language, artifacts
):
    _, study, tab_a = rate_page(chromium, live_server, language, cases=2)
    tab_b = tab_a.context.new_page()
    tab_b.language = language
    tab_b.set_viewport_size({"width": 1366, "height": 768})
    tab_b.goto(f"{live_server.url}/rate/{study.name}/")
    tab_b.wait_for_selector("#criteria li")
    assert tab_b.inner_text("#unit-token") == tab_a.inner_text("#unit-token")

    for button in tab_a.locator("#criteria li .hit-button").all():
        button.click()
    tab_a.click("#submit")
    tab_a.wait_for_selector("#confirmation:visible")

    for button in tab_b.locator("#criteria li .miss-button").all():
        button.click()
    tab_b.wait_for_selector("#two-tabs:visible")
    sentence = tab_b.inner_text("#two-tabs-text")
    assert sentence.count("。" if language == "zh-hans" else ".") == 1, sentence
    if language == "zh-hans":
        assert not LATIN.search(sentence), sentence
    assert "this assignment is already submitted" not in tab_b.inner_text("main")
    assert "lease" not in sentence.lower()
    rows = tab_b.locator("#two-tabs-marks tr")
    count = tab_b.locator("#criteria li").count()
    assert rows.count() == count + 1  # a header and one row per criterion
    cells = [rows.nth(i).locator("td").all_inner_texts() for i in range(1, count + 1)]
    met, not_met = ("满足", "未满足") if language == "zh-hans" else ("met", "not met")
    assert all(c[-2].endswith(not_met) and c[-1].endswith(met) for c in cells), cells
    shoot(tab_b, artifacts, "workbench-two-tabs")


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_submitted_stays_until_the_expert_acts_and_the_next_unit_opens_at_its_top(
    live_server, chromium, language, artifacts
):
    _, _, page = rate_page(chromium, live_server, language, cases=2, width=390, height=844)
    first = page.inner_text("#unit-token")
    for button in page.locator("#criteria li .hit-button").all():
        button.tap()
    page.locator("#submit").tap()
    page.wait_for_function(f"document.getElementById('unit-token').textContent !== '{first}'")
    page.wait_for_timeout(1000)
    confirmation = page.locator("#confirmation")
    assert confirmation.is_visible() and first in confirmation.inner_text()
    # The next unit from its beginning: the page at its top, the dialogue's first turn in view.
    assert page.evaluate("window.scrollY") == 0
    turn = page.locator("#dialogue li").first.bounding_box()
    assert 0 <= turn["y"] < 844
    assert page.evaluate("document.querySelector('.dialogue-card').scrollTop") == 0
    shoot(page, artifacts, "workbench-next-unit-phone")
    page.locator("#criteria li .miss-button").first.tap()
    assert not confirmation.is_visible()
