"""The workbench counts active time on a unit, leaves out the time its tab was hidden, and
carries the count over a reload (hiding the tab saves it with the draft)."""

import time

import pytest
from django.contrib.auth import get_user_model

from annotation import services
from annotation.models import Submission
from tests.builders.accounts import PASSWORD, ExpertFactory
from tests.builders.labels import all_labels
from tests.builders.studies import open_study
from tests.e2e.conftest import login

HIDDEN_SECONDS = 6
# The page hides and shows itself as a browser does when the expert switches tabs.
HIDE = """() => {
  Object.defineProperty(document, "visibilityState", { configurable: true, get: () => "hidden" });
  document.dispatchEvent(new Event("visibilitychange"));
}"""
SHOW = """() => {
  delete document.visibilityState;  // the document's own "visible" again
  document.dispatchEvent(new Event("visibilitychange"));
}"""


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_hidden_tab_time_is_not_counted(live_server, browser_page):
    expert = ExpertFactory(user__username="timed-e2e")
    open_study(cases=2, experts=[expert], name="timed-e2e")
    page = browser_page
    login(page, live_server, "timed-e2e", PASSWORD, next_path="/rate/timed-e2e/")
    page.wait_for_selector("#criteria li")
    shown = time.monotonic()
    first_token = page.inner_text("#unit-token")
    count = page.locator("#criteria li").count()

    page.keyboard.press("1")
    page.wait_for_timeout(4000)
    page.evaluate(HIDE)
    assert page.evaluate("document.visibilityState") == "hidden"
    page.wait_for_timeout(HIDDEN_SECONDS * 1000)
    page.evaluate(SHOW)
    assert page.evaluate("document.visibilityState") == "visible"
    page.reload()
    page.wait_for_selector("#criteria li.hit")  # the same unit, from its draft
    assert page.inner_text("#unit-token") == first_token
    for _ in range(count):
        page.keyboard.press("1")
    page.wait_for_timeout(2000)
    page.keyboard.press("Enter")
    page.wait_for_function(f"document.getElementById('unit-token').textContent !== '{first_token}'")
    elapsed = time.monotonic() - shown

    submission = Submission.objects.get(expert=expert)
    visible = elapsed - HIDDEN_SECONDS
    # Counted in whole seconds by a one-second tick (up to a second lost on each side of the
    # reload, which itself is not counted): at most 2.5 s under the visible time, never above
    # it. Counting the hidden time would add HIDDEN_SECONDS; losing the count at the reload
    # (no save on hiding) would drop the first four seconds.
    assert visible - 2.5 <= submission.active_seconds <= visible + 1, (
        submission.active_seconds,
        elapsed,
    )


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_the_dashboard_section_flags_too_fast_ratings(live_server, page_in, artifacts):
    steady, quick = ExpertFactory(display_name="steady"), ExpertFactory(display_name="quick")
    study = open_study(cases=8, experts=[steady, quick], name="timed-dash")
    for expert, times in [(steady, [90, 100, 110, 120, 95, 105, 100, 130]), (quick, [10, 100, 20])]:
        for seconds in times:
            a = services.assignment_claim_next(user=expert.user, pool=study.pool)
            services.assignment_submit(assignment=a, labels=all_labels(a), active_seconds=seconds)
    get_user_model().objects.create_superuser("admin-time", "t@example.org", PASSWORD)
    page = page_in
    page.set_viewport_size({"width": 1366, "height": 900})
    login(
        page, live_server, "admin-time", PASSWORD, next_path="/admin/dashboard/studies/timed-dash/"
    )
    section = page.locator("#time-on-task")
    section.wait_for()
    flagged = page.locator(f"#time-table tr[data-expert='{quick.pk}'] .too-fast")
    assert flagged.inner_text() == "⚠ 2" and flagged.is_visible()
    assert page.locator("#time-table .too-fast").count() == 1
    assert ("用时" if page.language == "zh-hans" else "Time on task") in section.inner_text()
    for width in (1920, 1366, 390):
        page.set_viewport_size({"width": width, "height": 900})
        section.scroll_into_view_if_needed()
        # The table stays inside the window (it may scroll on its own on a phone).
        box = page.locator("#time-table").bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= width + 1, (width, box)
        page.screenshot(path=str(artifacts / f"dashboard-time-on-task-{width}-{page.language}.png"))
    section.screenshot(path=str(artifacts / f"dashboard-time-on-task-section-{page.language}.png"))
