"""The workbench with any input and on any screen (issue 15), in a real browser and in both
languages: a 10-criterion unit rated with the mouse alone and with the keyboard alone (criteria
+ 1 key presses), hit/miss buttons large enough for a finger with names in the page's language,
the keyboard-help panel, Enter on an unmarked unit, Enter on a header link, the unit's progress
as a sentence, and a long dialogue that never pushes the response and the criteria out of view.
Screenshots: ``workbench-<1920|1366|390>-<language>.png``.
"""

import re

import pytest

from annotation.models import Label, Submission
from tests.builders.accounts import PASSWORD, ExpertFactory
from tests.builders.datasets import (
    DatasetFactory,
    ModelUnderTestFactory,
    ResponseFactory,
    case_with_rubric,
)
from tests.e2e.conftest import login, shoot
from validation import services as study_services

CRITERIA = 10
TURNS = 30
RESPONSE = (
    "谢谢你愿意把这些告诉我。听起来这段时间你一直在很用力地撑着，工作上的压力和晚上睡不好"
    "叠在一起，换了谁都会觉得累。我想先问问你：最近有没有哪一刻，你觉得稍微轻松一点？"
)
PROGRESS = {"en": "{done} of {total} marked", "zh-hans": "已标注 {done} / {total} 项"}
HAN = re.compile(r"[\u4e00-\u9fff]")


def long_study(expert, name: str):
    """One unit: a 30-turn dialogue, a two-sentence response and ten criteria."""
    dataset = DatasetFactory()
    model = ModelUnderTestFactory()
    abilities = ["warmth", "curiosity", "emotional_coping", "proactivity", "morality"]
    rubric = [(abilities[i % len(abilities)], 3) for i in range(CRITERIA - 1)]
    dialogue = [
        {
            "role": "A" if i % 2 == 0 else "B",
            "content": f"第 {i + 1} 轮：最近工作压力很大，晚上总是睡不着，白天也提不起精神，"
            "不知道该怎么和家人说这些事情。",
        }
        for i in range(TURNS)
    ]
    case = case_with_rubric(
        dataset=dataset, rubric=[*rubric, ("catastrophic", None)], dialogue=dialogue
    )
    ResponseFactory(model=model, case=case, text=RESPONSE)
    study = study_services.study_create(
        name=name,
        dataset=dataset,
        models=[model],
        judge_runs=[],
        fraction=1.0,
        seed=7,
        experts=[expert],
    )
    return study_services.study_open(study=study)


def open_unit(page, live_server, name: str):
    expert = ExpertFactory(user__username=f"{name}-{page.language}")
    long_study(expert, name)
    login(page, live_server, expert.user.username, PASSWORD, next_path=f"/rate/{name}/")
    page.wait_for_selector("#criteria li")
    assert page.locator("#criteria li").count() == CRITERIA
    return expert


def progress(page, done: int) -> str:
    return PROGRESS[page.language].format(done=done, total=CRITERIA)


def shown_texts(page) -> list[str]:
    return page.eval_on_selector_all("#criteria li .text", "l => l.map(e => e.textContent)")


def submitted(page, expert) -> dict[str, bool]:
    # The page says when the submit is in (one unit only: nothing is left after it).
    page.wait_for_selector("#empty", state="visible")
    submission = Submission.objects.get(expert=expert)
    labels = Label.objects.filter(submission=submission)
    return dict(labels.values_list("rubric_item__text", "hit"))


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_mouse_alone_rates_ten_criteria_and_submits(live_server, page_in, artifacts):
    page = page_in
    expert = open_unit(page, live_server, "mouse")
    items = page.locator("#criteria li")
    for index in range(CRITERIA):
        for kind in ("hit", "miss"):
            button = items.nth(index).locator(f"button.{kind}-button")
            box = button.bounding_box()
            assert box["width"] >= 44 and box["height"] >= 44, (index, kind, box)
            assert button.get_attribute("aria-pressed") == "false"
            name = button.get_attribute("aria-label")
            assert name and str(index + 1) in name
            # An accessible name in the page's language.
            assert bool(HAN.search(name)) == (page.language == "zh-hans"), name
    assert page.inner_text("#progress") == progress(page, 0)

    # Clicking a criterion's text selects it.
    items.nth(4).locator(".text").click()
    assert "current" in items.nth(4).get_attribute("class")

    marks = [index % 3 != 0 for index in range(CRITERIA)]
    for index, hit in enumerate(marks):
        items.nth(index).locator("button.miss-button" if hit else "button.hit-button").click()
    # A mark can be changed until submit: every one is now turned the other way.
    for index, hit in enumerate(marks):
        button = items.nth(index).locator("button.hit-button" if hit else "button.miss-button")
        button.click()
        assert button.get_attribute("aria-pressed") == "true"
        other = items.nth(index).locator("button.miss-button" if hit else "button.hit-button")
        assert other.get_attribute("aria-pressed") == "false"
        assert "current" in items.nth(index).get_attribute("class")
    assert page.inner_text("#progress") == progress(page, CRITERIA)
    shoot(page, artifacts, "workbench-marked")
    texts = shown_texts(page)
    page.click("#submit")
    assert submitted(page, expert) == dict(zip(texts, marks, strict=True))


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_keyboard_alone_rates_ten_criteria_with_criteria_plus_one_presses(live_server, page_in):
    page = page_in
    expert = open_unit(page, live_server, "keys")
    texts = shown_texts(page)
    marks = [index % 2 == 0 for index in range(CRITERIA)]
    presses = 0
    for hit in marks:
        page.keyboard.press("1" if hit else "0")
        presses += 1
    assert page.inner_text("#progress") == progress(page, CRITERIA)
    page.keyboard.press("Enter")
    presses += 1
    assert presses == CRITERIA + 1
    assert submitted(page, expert) == dict(zip(texts, marks, strict=True))


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_help_panel_unmarked_enter_and_header_links(live_server, page_in, artifacts):
    page = page_in
    open_unit(page, live_server, "help")
    items = page.locator("#criteria li")

    # ? opens the keyboard help, Esc closes it.
    assert not page.locator("#help").is_visible()
    page.keyboard.press("?")
    page.wait_for_selector("#help", state="visible")
    help_text = page.inner_text("#help")
    assert "Enter" in help_text and "Esc" in help_text
    assert ("键盘" if page.language == "zh-hans" else "Keyboard") in help_text
    shoot(page, artifacts, "workbench-help")
    page.keyboard.press("Escape")
    page.wait_for_selector("#help", state="hidden")
    # An Enter that still reaches the closed dialog's Close button (it may keep the focus
    # until the next frame) is the expert's Enter: with nothing marked, it says so.
    page.dispatch_event("#help-close", "keydown", {"key": "Enter", "bubbles": True})
    assert ("未标注" if page.language == "zh-hans" else "not marked") in page.inner_text("#status")

    # Enter with criteria unmarked says so and selects the first unmarked one.
    page.keyboard.press("1")
    page.keyboard.press("1")
    page.keyboard.press("j")
    page.keyboard.press("0")
    assert page.inner_text("#progress") == progress(page, 3)
    page.keyboard.press("Enter")
    assert "current" in items.nth(2).get_attribute("class")
    shown = page.inner_text("#status")
    assert "7" in shown
    assert ("未标注" if page.language == "zh-hans" else "not marked") in shown
    assert Submission.objects.count() == 0
    shoot(page, artifacts, "workbench-unmarked")

    # Enter on a focused header link follows the link.
    page.focus("header nav a[href='/faq/']")
    page.keyboard.press("Enter")
    page.wait_for_url("**/faq/")


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_response_and_criteria_in_view_with_a_long_dialogue(live_server, page_in, artifacts):
    page = page_in
    page.set_viewport_size({"width": 1366, "height": 768})
    open_unit(page, live_server, "layout")
    for width, height in ((1920, 1080), (1366, 768)):
        page.set_viewport_size({"width": width, "height": height})
        page.evaluate("window.scrollTo(0, 0)")
        for selector in ("#response", "#criteria li:first-child", "#submit"):
            box = page.locator(selector).bounding_box()
            assert box["y"] >= 0 and box["y"] + box["height"] <= height, (width, selector, box)
            assert box["x"] >= 0 and box["x"] + box["width"] <= width, (width, selector, box)
        # The dialogue scrolls on its own; the window does not need to.
        assert page.evaluate("document.documentElement.scrollHeight") <= height, width
        assert page.evaluate("document.documentElement.scrollWidth") <= width, width
        page.wait_for_selector("#saved, #status")
        shoot(page, artifacts, f"workbench-{width}")

    page.set_viewport_size({"width": 390, "height": 844})
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    dialogue = page.locator(".dialogue-card").bounding_box()
    criteria = page.locator(".criteria-card").bounding_box()
    assert criteria["y"] >= dialogue["y"] + dialogue["height"], (dialogue, criteria)
    for selector in ("#criteria li:first-child button.hit-button", "#submit", "#response"):
        box = page.locator(selector).bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= 390, (selector, box)
    shoot(page, artifacts, "workbench-390")
