"""The workbench's progress line follows the expert's work without a reload, in both languages."""

import pytest

from tests.builders.accounts import PASSWORD, ExpertFactory
from tests.builders.studies import open_study
from tests.e2e.conftest import login, shoot
from tests.e2e.widths import shoot_widths

LABELS = {"en": "Rated by you:", "zh-hans": "你已标注："}


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_progress_counts_update_after_each_submit(live_server, page_in, artifacts):
    page = page_in
    expert = ExpertFactory(user__username=f"progress-{page.language}", daily_capacity=10)
    open_study(cases=3, experts=[expert], name="progress")
    login(page, live_server, expert.user.username, PASSWORD, next_path="/rate/progress/")
    page.wait_for_selector("#criteria li")
    panel = page.locator("#study-progress")
    assert LABELS[page.language] in panel.inner_text()

    def count(key: str) -> str:
        return panel.locator(f"[data-key={key}]").inner_text()

    # Holding the first unit: none rated, two more left, the whole capacity, no unit complete.
    page.wait_for_function("document.querySelector('[data-key=left_for_me]').textContent === '2'")
    assert (count("mine"), count("capacity_left"), count("team_total")) == ("0", "10", "3")
    sent = []
    page.on("request", lambda request: sent.append(request.url))
    for _ in range(page.locator("#criteria li").count()):
        page.keyboard.press("1")
    page.keyboard.press("Enter")
    page.wait_for_function("document.querySelector('[data-key=mine]').textContent === '1'")
    assert (count("left_for_me"), count("capacity_left")) == ("1", "9")
    assert count("team_complete") == "0"  # one rating of three
    # The next unit's claim brought the counts: no second request for them.
    assert any("/work/rating/next/" in url for url in sent)
    assert not any("/api/v1/studies/" in url for url in sent), sent
    shoot_widths(page, artifacts, "workbench-progress")


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_left_for_me_shows_the_cap_with_a_plus_until_it_is_reached(live_server, page_in, artifacts):
    page = page_in
    expert = ExpertFactory(user__username=f"progress-cap-{page.language}", daily_capacity=10)
    open_study(cases=34, models=3, experts=[expert], name="progress-cap")  # 102 units
    login(page, live_server, expert.user.username, PASSWORD, next_path="/rate/progress-cap/")
    page.wait_for_selector("#criteria li")
    left = page.locator("#study-progress [data-key=left_for_me]")
    # Holding the first unit, 101 are left: past the cap.
    page.wait_for_function(
        "document.querySelector('[data-key=left_for_me]').textContent === '100+'"
    )
    shoot(page, artifacts, "workbench-progress-cap")
    for _ in range(page.locator("#criteria li").count()):
        page.keyboard.press("1")
    page.keyboard.press("Enter")
    # The next unit held, 100 are left: the cap itself, no more.
    page.wait_for_function("document.querySelector('[data-key=mine]').textContent === '1'")
    page.wait_for_function("document.querySelector('[data-key=left_for_me]').textContent === '100'")
    assert left.inner_text() == "100"
