"""An admin in Chromium: a sequentially monitored study's dashboard shows its current look,
boundary, every gate condition of each judge with its status there and what stopping would
save; while catastrophic recall lacks gold hits the study cannot stop; once every condition is
decided (one judge passed, the other failed) the admin stops the study early. In both
languages, at 1920, 1366 and 390 px with no sideways scroll."""

import pytest
from django.contrib.auth import get_user_model

from tests.builders.monitoring import monitored_study, rate_until
from tests.e2e.conftest import shoot
from validation.selectors import study_get

PASSWORD = "pw-admin-stop-1"
WIDTHS = (1920, 1366, 390)
WORDS = {
    "boundary": {"en": "current boundary (critical value)", "zh-hans": "当前边界（临界值）"},
    "stopped": {"en": "Study stopped early", "zh-hans": "研究已提前停止"},
    "planned": {"en": "Planned: ±0.050", "zh-hans": "半宽 ±0.050"},
    "keep": {"en": "keep rating", "zh-hans": "继续标注"},
}


def show(page, artifacts, section, name: str) -> None:
    section.scroll_into_view_if_needed()
    for width in WIDTHS:
        page.set_viewport_size({"width": width, "height": 900})
        assert page.evaluate("document.documentElement.scrollWidth") <= width, width
        shoot(page, artifacts, f"{name}-{width}")
        section.screenshot(path=str(artifacts / f"{name}-section-{width}-{page.language}.png"))
    page.set_viewport_size({"width": 1366, "height": 900})


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_admin_sees_the_look_and_stops_the_study_early(live_server, page_in, artifacts):
    study, experts = monitored_study()
    study.plan = {"half_width": 0.05, "expected_agreement": 0.85, "cases": 24}
    study.save(update_fields=["plan"])
    rate_until(study, experts, 8)
    get_user_model().objects.create_superuser("admin-stop", "s@example.org", PASSWORD)
    page = page_in
    page.goto(f"{live_server.url}/admin/login/?next=/admin/dashboard/studies/{study.name}/")
    page.fill("#id_username", "admin-stop")
    page.fill("#id_password", PASSWORD)
    page.click("input[type=submit]")
    page.wait_for_selector("#monitoring")
    section = page.locator("#monitoring")
    assert WORDS["boundary"][page.language] in section.inner_text()
    # Look 1: each judge's five conditions; catastrophic recall is not decided yet (too few
    # gold hits, or an interval still across the threshold), so no stop.
    rows = section.locator("#conditions-table tr[data-condition]")
    assert rows.count() == 10
    lacking = section.locator('tr[data-condition="catastrophic_recall"]')
    assert {lacking.nth(i).get_attribute("data-status") for i in range(2)} <= {
        "not_enough_data",
        "undecided",
    }
    assert WORDS["keep"][page.language] in page.inner_text("#monitoring-verdict")
    assert page.locator("#stop-early").count() == 0
    show(page, artifacts, section, "early-stopping-look1")

    # Look 2: every condition of both judges decided; stopping is offered.
    rate_until(study, experts, 16)
    page.reload()
    section = page.locator("#monitoring")
    assert rows.count() == 10
    assert section.locator('tr[data-status="passed"]').count() == 8
    assert section.locator('tr[data-status="failed"]').count() == 2
    show(page, artifacts, section, "early-stopping")

    page.check("#stop-early input[name=confirm]")
    page.click("#stop-early button[type=submit]")
    page.wait_for_selector("ul.messagelist li.success")
    assert WORDS["stopped"][page.language] in page.inner_text("ul.messagelist")
    assert page.locator("#stop-early").count() == 0
    assert study_get(name=study.name).pool.status == "closed"
    shoot(page, artifacts, "early-stopped")

    # The study report states the planned half-width against the achieved one.
    page.goto(f"{live_server.url}/admin/studies/{study.name}/report/")
    plan = page.locator("p.plan").first
    assert WORDS["planned"][page.language] in plan.inner_text()
    plan.scroll_into_view_if_needed()
    for width in WIDTHS:
        page.set_viewport_size({"width": width, "height": 900})
        shoot(page, artifacts, f"report-planned-{width}")
        gate = artifacts / f"report-planned-gate-{width}-{page.language}.png"
        page.locator("section.judge").first.screenshot(path=str(gate))
