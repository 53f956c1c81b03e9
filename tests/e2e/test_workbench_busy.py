"""A busy server (503 + Retry-After: nothing changed) makes the workbench wait and try again."""

import pytest

from tests.builders.accounts import PASSWORD, ExpertFactory
from tests.builders.studies import open_study
from tests.e2e.conftest import login


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_the_workbench_waits_out_a_busy_server_and_then_shows_the_unit(
    live_server, page_in, artifacts
):
    expert = ExpertFactory(user__username="busy-e2e")
    open_study(cases=1, experts=[expert], name="busy-study")
    page = page_in
    busy = {"left": 2}

    def first_claims_busy(route):
        # The server's own 503 (config.busy, or every unit locked) is tested on the server.
        if busy["left"] > 0:
            busy["left"] -= 1
            route.fulfill(
                status=503,
                headers={"Retry-After": "1", "Content-Type": "application/json"},
                body='{"detail": "busy", "code": "busy"}',
            )
        else:
            route.continue_()

    page.route("**/api/v1/work/rating/next/*", first_claims_busy)
    login(page, live_server, "busy-e2e", PASSWORD, next_path="/rate/busy-study/")
    page.wait_for_function("document.getElementById('status').textContent.includes('1')")
    shown = page.inner_text("#status")
    assert ("繁忙" if page.language == "zh-hans" else "busy") in shown
    page.wait_for_selector("#criteria li")
    assert busy["left"] == 0
    assert page.locator("#unit").is_visible()
    assert "Error" not in page.inner_text("#status") and "错误" not in page.inner_text("#status")
