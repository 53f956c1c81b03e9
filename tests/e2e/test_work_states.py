"""The workbench says which state holds when there is nothing to rate, in a real browser and in
both languages (issue 12, defect i): the daily limit reached right after a submit (the script
shows the state the API names) and on a reload (the server renders it), then the same study
closed. Each message is readable at 1920, 1366 and 390 px, with no empty workbench under it and
no raw state names. Screenshots: ``work-state-<state>-<after-submit|link>-<width>-<language>``
and the home page's ``work-state-home-<state>-<language>`` (``.png``).
"""

import pytest

from annotation import services
from tests.builders.accounts import PASSWORD, ExpertFactory
from tests.builders.labels import all_labels
from tests.builders.studies import open_study
from tests.e2e.conftest import login, shoot
from validation import services as study_services

WIDTHS = (1920, 1366, 390)
TITLES = {
    "capacity_reached": {"en": "You have reached today's limit", "zh-hans": "你已达到今天的上限"},
    "study_closed": {"en": "This study is closed", "zh-hans": "本研究已关闭"},
    "nothing_left": {"en": "Nothing left for you in this study", "zh-hans": "本研究中已没有"},
    "not_open_yet": {"en": "This study is not open yet", "zh-hans": "本研究尚未开放"},
    "not_enrolled": {"en": "You are not part of this study", "zh-hans": "你不在此研究中"},
}
HOME_REASONS = {
    "capacity_reached": {"en": "Today's limit reached", "zh-hans": "今日已达上限"},
    "study_closed": {"en": "closed", "zh-hans": "已关闭"},
}
RAW = ("capacity_reached", "study_closed", "nothing_left", "not_open_yet", "not_enrolled")


def check_message(page, state: str, artifacts, how: str) -> None:
    """The state's message alone, readable at every width; a screenshot at each."""
    message = page.locator(f"#empty .state-message[data-state={state}]")
    assert message.is_visible()
    assert page.locator("#empty .state-message:visible").count() == 1
    assert TITLES[state][page.language] in message.inner_text()
    # No empty workbench under it: no unit, no keyboard help, no loading line.
    for selector in ("#unit", "#keys", "#criteria li"):
        assert page.locator(f"{selector}:visible").count() == 0, selector
    assert not page.locator("#status").all_inner_texts() or not page.inner_text("#status")
    shown = page.inner_text("main")
    assert not any(raw in shown for raw in RAW), shown
    if page.language == "zh-hans":
        assert "limit" not in shown and "study" not in shown.lower(), shown
    for width in WIDTHS:
        page.set_viewport_size({"width": width, "height": 900})
        box = message.bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= width, (state, width, box)
        # Nothing widens the page past the window (the header's links wrap on a phone).
        assert page.evaluate("document.documentElement.scrollWidth") <= width, (state, width)
        size = page.evaluate(
            "parseFloat(getComputedStyle(document.querySelector('#empty p')).fontSize)"
        )
        assert size >= 14, (state, width, size)
        shoot(page, artifacts, f"work-state-{state}-{how}-{width}")
    page.set_viewport_size({"width": 1280, "height": 900})


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_capacity_reached_then_closed_in_both_languages(live_server, page_in, artifacts):
    page = page_in
    expert = ExpertFactory(user__username=f"states-{page.language}", daily_capacity=1)
    study = open_study(cases=3, experts=[expert], name="states")
    login(page, live_server, expert.user.username, PASSWORD, next_path="/rate/states/")

    # Rate the one unit today's limit allows; the claim after the submit names the state.
    page.wait_for_selector("#criteria li")
    for _ in range(page.locator("#criteria li").count()):
        page.keyboard.press("1")
    page.keyboard.press("Enter")
    page.wait_for_selector("#empty .state-message[data-state=capacity_reached]", state="visible")
    check_message(page, "capacity_reached", artifacts, "after-submit")

    # The old link, reloaded: the server says it before any script runs.
    page.reload()
    assert page.locator("#workbench").count() == 0
    check_message(page, "capacity_reached", artifacts, "link")
    page.goto(f"{live_server.url}/")
    row = page.locator("ul.studies li", has_text="states")
    assert row.locator("a.button").count() == 0  # no "start" that leads nowhere
    assert HOME_REASONS["capacity_reached"][page.language] in row.inner_text()
    shoot(page, artifacts, "work-state-home-capacity_reached")

    study_services.study_close(study=study)
    page.goto(f"{live_server.url}/rate/states/")
    assert page.title() and "404" not in page.title()
    check_message(page, "study_closed", artifacts, "link")
    page.goto(f"{live_server.url}/")
    row = page.locator("ul.studies li", has_text="states")
    assert row.locator("a.button").count() == 0
    assert HOME_REASONS["study_closed"][page.language] in row.inner_text()
    shoot(page, artifacts, "work-state-home-study_closed")

    # The other states, for the record (screenshots at the three widths too).
    expert.daily_capacity = 100
    expert.save()
    models = list(study.models_under_test.all())
    full, _ = (
        study_services.study_create(
            name=name, dataset=study.dataset, models=models, fraction=1.0, seed=1, experts=[expert]
        )
        for name in ("full", "later")
    )
    study_services.study_open(study=full)
    while assignment := services.assignment_claim_next(user=expert.user, pool=full.pool):
        services.assignment_submit(assignment=assignment, labels=all_labels(assignment))
    for name, state in (("full", "nothing_left"), ("later", "not_open_yet"), ("x", "not_enrolled")):
        page.goto(f"{live_server.url}/rate/{name}/")
        check_message(page, state, artifacts, "link")
