"""Issue 39, the senior's page: an expert rates and a senior adjudicates a unit with the mouse
alone (1366×768) and with a finger (390 px, touch), in both languages, the response in view
beside (or pinned above) the criteria while the last one is marked: asserted on bounding
boxes. Screenshots at 1920, 1366 and 390 px of the workbench with a ~500-character response
and of the senior page (``senior-workbench-*``, ``senior-page-*``), axe-core clean.
"""

import re

import pytest

from annotation.models import Label
from benchmark.models import Response
from tests.builders.accounts import PASSWORD, ExpertFactory
from tests.builders.adjudication import CURIOSITY, WARMTH, rate_positions
from tests.builders.browser import LONG_RESPONSE
from tests.builders.studies import open_study
from tests.e2e.conftest import LOCALES, login, shoot
from tests.e2e.widths import readable_at_every_width
from validation.models import StudyUnit

MET = {"en": "✓ Met", "zh-hans": "✓ 满足"}
NOT_MET = {"en": "✗ Not met", "zh-hans": "✗ 未满足"}


def mouse_or_touch(chromium, language, touch: bool):
    size = {"width": 390, "height": 844} if touch else {"width": 1366, "height": 768}
    context = chromium.new_context(
        viewport=size, locale=LOCALES[language], has_touch=touch, is_mobile=touch
    )
    page = context.new_page()
    page.language = language
    return page


def press(locator, touch: bool) -> None:
    locator.tap() if touch else locator.click()


def box_in_view(page, locator, name: str) -> dict:
    """The element's box, asserted wholly inside the viewport."""
    box = locator.bounding_box()
    size = page.viewport_size
    assert box is not None, name
    assert box["y"] >= 0 and box["y"] + box["height"] <= size["height"] + 0.5, (name, box, size)
    assert box["x"] >= 0 and box["x"] + box["width"] <= size["width"] + 0.5, (name, box, size)
    return box


def layout_checks(page, touch: bool) -> None:
    """Side by side on a wide window, one column on a phone; the response stays in view."""
    response = box_in_view(page, page.locator("#response"), "response")
    criteria = page.locator("#criteria").bounding_box()
    if touch:
        assert abs(response["x"] - criteria["x"]) < 40  # one column
    else:
        assert response["x"] + response["width"] <= criteria["x"]  # beside the criteria


def in_view_at_full_hd(page, last) -> None:
    """The same at 1920×1080; the window is left at 1366×768."""
    page.set_viewport_size({"width": 1920, "height": 1080})
    box_in_view(page, last, "last button at 1920")
    layout_checks(page, False)
    page.set_viewport_size({"width": 1366, "height": 768})


def split_unit_study(language: str, rater, senior):
    """One unit with two ratings in; a third that marks everything met leaves warmth 3/0,
    curiosity 2/1, coping and catastrophic 1/2: three splits for the senior."""
    others = ExpertFactory.create_batch(2)
    study = open_study(
        cases=1,
        experts=[*others, rater, senior],
        name=f"senior-page-{language}",
        adjudicate_splits=["*"],
        show_ability=True,
    )
    Response.objects.update(text=LONG_RESPONSE)
    rate_positions(others[0], study, {WARMTH: True, CURIOSITY: True})
    rate_positions(others[1], study, {WARMTH: True})
    return study


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("touch", [False, True], ids=["mouse-1366", "touch-390"])
def test_an_expert_rates_and_a_senior_adjudicates_without_a_keyboard(
    live_server, chromium, language, touch, artifacts
):
    rater = ExpertFactory(user__username=f"rater-{language}-{touch}")
    senior = ExpertFactory(tier="senior", user__username=f"senior-{language}-{touch}")
    study = split_unit_study(language, rater, senior)

    page = mouse_or_touch(chromium, language, touch)
    login(page, live_server, rater.user.username, PASSWORD, next_path=f"/rate/{study.name}/")
    page.wait_for_selector("#criteria li")
    items = page.locator("#criteria li")
    count = items.count()
    for index in range(count):
        button = items.nth(index).locator(".hit-button")
        assert button.inner_text() == MET[language]
        press(button, touch)
    assert items.nth(count - 1).locator(".hit-button").get_attribute("aria-pressed") == "true"
    box_in_view(page, items.nth(count - 1).locator(".hit-button"), "last met button")
    layout_checks(page, touch)
    # What the window shows as the last criterion is marked (not the whole page).
    page.screenshot(path=str(artifacts / f"senior-last-marked-rater-{touch}-{language}.png"))
    if not touch:
        in_view_at_full_hd(page, items.nth(count - 1).locator(".hit-button"))
        problems = readable_at_every_width(page, artifacts, "senior-workbench")
        assert problems == []
    press(page.locator("#submit"), touch)
    page.wait_for_selector("#confirmation:visible")

    senior_page = mouse_or_touch(chromium, language, touch)
    login(senior_page, live_server, senior.user.username, PASSWORD, next_path="/adjudicate/")
    senior_page.goto(f"{live_server.url}/adjudicate/{study.name}/")
    senior_page.wait_for_selector("#criteria li")
    if not touch and language == "en":  # the senior's header fits on one line at 1366 px
        tops = {
            round(b["y"])
            for b in senior_page.locator(".bar nav > *").evaluate_all(
                "els => els.map(e => e.getBoundingClientRect().toJSON())"
            )
        }
        assert len(tops) == 1, tops
    decisions = senior_page.locator("#criteria li")
    assert decisions.count() == 3  # curiosity 2/1, coping and catastrophic 1/2
    for index in range(3):
        item = decisions.nth(index)
        choice = item.locator(".hit-button" if index == 0 else ".miss-button")
        assert choice.inner_text() == (MET if index == 0 else NOT_MET)[language]
        press(choice, touch)
        item.locator("textarea").fill(f"理由 {index}")
    box_in_view(senior_page, decisions.nth(2).locator(".miss-button"), "last not-met button")
    layout_checks(senior_page, touch)
    senior_page.screenshot(
        path=str(artifacts / f"senior-last-marked-senior-{touch}-{language}.png")
    )
    assert senior_page.locator("#submit").is_enabled()
    if not touch:
        in_view_at_full_hd(senior_page, decisions.nth(2).locator(".miss-button"))
        problems = readable_at_every_width(senior_page, artifacts, "senior-page")
        assert problems == []
    press(senior_page.locator("#submit"), touch)
    senior_page.wait_for_selector("#confirmation:visible")
    senior_page.wait_for_selector("#empty:visible")

    labels = Label.objects.filter(submission__kind="adjudication", submission__expert=senior)
    assert sorted(label.note for label in labels) == ["理由 0", "理由 1", "理由 2"]
    assert sum(label.hit for label in labels) == 1
    assert study.units.get().state == StudyUnit.State.ADJUDICATED


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_the_completed_work_and_the_lock_out_pages_read_at_every_width(
    live_server, chromium, language, settings, artifacts
):
    rater = ExpertFactory(user__username=f"done-{language}")
    study = open_study(cases=2, experts=[rater], name=f"done-{language}")
    rate_positions(rater, study, {WARMTH: True})
    rate_positions(rater, study, {CURIOSITY: True})
    page = mouse_or_touch(chromium, language, False)
    login(page, live_server, rater.user.username, PASSWORD, next_path="/done/")
    page.wait_for_selector("table.done")
    met = "满足" if language == "zh-hans" else "met"
    assert met in page.inner_text("table.done")
    assert readable_at_every_width(page, artifacts, "completed-work") == []
    # No column is squeezed to a character a line on a phone.
    page.set_viewport_size({"width": 390, "height": 844})
    widths = page.locator("table.done td").evaluate_all(
        "els => els.map(e => e.getBoundingClientRect().width)"
    )
    font = page.evaluate(
        "parseFloat(getComputedStyle(document.querySelector('table.done')).fontSize)"
    )
    assert min(widths) >= 3 * font, widths

    settings.HEARTBENCH_LOGIN_THROTTLE = {"per_user": 1, "per_address": 100, "window": 60}
    locked = mouse_or_touch(chromium, language, False)
    for _ in range(2):
        locked.goto(f"{live_server.url}/login/")
        locked.fill("input[name=username]", rater.user.username)
        locked.fill("input[name=password]", "wrong password")
        locked.press("input[name=password]", "Enter")
        locked.wait_for_load_state()
    assert locked.get_attribute("html", "lang") == language
    assert locked.locator("header.bar .brand").is_visible()
    assert locked.locator("header.bar .lang-switch button").count() == 2
    assert readable_at_every_width(locked, artifacts, "lock-out") == []
    other = "English" if language == "zh-hans" else "简体中文"
    locked.click(f"header.bar .lang-switch button:text-is('{other}')")
    locked.wait_for_load_state()
    assert locked.get_attribute("html", "lang") == ("en" if language == "zh-hans" else "zh-hans")


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_a_second_tab_of_a_senior_says_in_one_sentence_the_unit_was_decided(
    live_server, chromium, language, artifacts
):
    rater = ExpertFactory(user__username=f"rater2-{language}")
    senior = ExpertFactory(tier="senior", user__username=f"senior2-{language}")
    study = split_unit_study(language, rater, senior)
    rate_positions(rater, study, {})
    tab_a = mouse_or_touch(chromium, language, False)
    login(
        tab_a, live_server, senior.user.username, PASSWORD, next_path=f"/adjudicate/{study.name}/"
    )
    tab_b = tab_a.context.new_page()
    tab_b.language = language
    tab_b.goto(f"{live_server.url}/adjudicate/{study.name}/")
    for tab, button in ((tab_a, ".hit-button"), (tab_b, ".miss-button")):
        tab.wait_for_selector("#criteria li")
        for index, item in enumerate(tab.locator("#criteria li").all()):
            item.locator(button).click()
            item.locator("textarea").fill(f"理由 {index}")
    assert tab_a.inner_text("#unit-token") == tab_b.inner_text("#unit-token")
    tab_a.click("#submit")
    tab_a.wait_for_selector("#confirmation:visible")
    tab_b.click("#submit")
    tab_b.wait_for_selector("#two-tabs:visible")
    sentence = tab_b.inner_text("#two-tabs p")
    assert sentence.count("。" if language == "zh-hans" else ".") == 1, sentence
    if language == "zh-hans":
        assert not re.search(r"[A-Za-z]{3,}", sentence), sentence
    assert "already adjudicated" not in tab_b.inner_text("main")
    assert tab_b.locator("#unit").is_visible()  # this tab's decisions stay in view
    decided = tab_b.locator("#criteria .miss-button[aria-pressed=true]").count()
    assert decided == tab_b.locator("#criteria li").count() == 2  # warmth 2/1, curiosity 1/2
    shoot(tab_b, artifacts, "adjudication-two-tabs")


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_a_senior_who_lost_the_session_logs_in_and_records_the_kept_decisions(
    live_server, chromium, language, artifacts
):
    rater = ExpertFactory(user__username=f"rater3-{language}")
    senior = ExpertFactory(tier="senior", user__username=f"senior3-{language}")
    study = split_unit_study(language, rater, senior)
    rate_positions(rater, study, {})  # two splits: warmth 2/1, curiosity 1/2
    page = mouse_or_touch(chromium, language, False)
    path = f"/adjudicate/{study.name}/"
    login(page, live_server, senior.user.username, PASSWORD, next_path=path)
    page.wait_for_selector("#criteria li")
    for index, item in enumerate(page.locator("#criteria li").all()):
        item.locator(".hit-button").click()
        item.locator("textarea").fill(f"理由 {index}")
    page.context.clear_cookies()
    page.click("#submit")
    page.wait_for_selector("#signed-out:visible")
    assert "401" not in page.inner_text("main")
    assert page.locator("#criteria .hit-button[aria-pressed=true]").count() == 2
    page.click("#signed-out a")
    page.fill("input[name=username]", senior.user.username)
    page.fill("input[name=password]", PASSWORD)
    page.press("input[name=password]", "Enter")
    page.wait_for_selector("#criteria li")
    assert page.url.endswith(path)
    assert page.locator("#criteria .hit-button[aria-pressed=true]").count() == 2
    assert page.locator("#criteria textarea").evaluate_all("els => els.map(e => e.value)") == [
        "理由 0",
        "理由 1",
    ]
    page.click("#submit")
    page.wait_for_selector("#empty:visible")
    labels = Label.objects.filter(submission__kind="adjudication", submission__expert=senior)
    assert sorted(label.note for label in labels) == ["理由 0", "理由 1"]
