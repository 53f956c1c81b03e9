"""An admin in Chromium: the dashboard shows a unit whose lease keeps expiring, the admin
routes it to an expert by hand from the alert, and sees it taken; in both languages."""

from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone

from annotation import services
from annotation.models import Assignment
from benchmark.services.judging import verdicts_store
from tests.builders.accounts import ExpertFactory
from tests.builders.datasets import JudgeRunFactory
from tests.builders.studies import open_study
from tests.e2e.conftest import shoot

PASSWORD = "pw-admin-dash-1"


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_admin_routes_a_unit_from_the_expiring_lease_alert(live_server, page_in, artifacts):
    helper = ExpertFactory(display_name="routed-expert")
    study = open_study(cases=4, experts=[helper], name="dash-e2e")
    unit = study.pool.units.order_by("pk").first()
    past = timezone.now() - timedelta(hours=1)
    for expert in ExpertFactory.create_batch(3):  # three leases on it expired one after another
        study.pool.experts.add(expert)
        Assignment.objects.create(pool=study.pool, unit=unit, expert=expert, slot=1,
                                  status=Assignment.Status.EXPIRED,
                                  lease_expires_at=past)  # fmt: skip
    get_user_model().objects.create_superuser("admin-dash", "a@example.org", PASSWORD)
    page = page_in
    page.goto(f"{live_server.url}/admin/login/?next=/admin/")
    page.fill("#id_username", "admin-dash")
    page.fill("#id_password", PASSWORD)
    page.click("input[type=submit]")
    page.wait_for_selector("#project-pages")
    assert page.evaluate("document.documentElement.lang").startswith(page.language[:2])
    page.click("#project-pages a[href='/admin/dashboard/']")  # linked from the admin index

    alert = page.locator(f"li[data-alert='expiring-lease'][data-unit='{unit.token}']")
    alert.wait_for()
    assert "3" in alert.inner_text()
    shoot(page, artifacts, "dashboard-alert")
    alert.locator("a.button").click()

    # The study's page, with the routing form filled in from the alert.
    page.wait_for_selector("#route-form")
    assert page.input_value("#route-form input[name=unit]") == unit.token
    assert page.locator("#units-by-state").count() == 1
    assert page.locator("figure svg > title").count() == 1  # the per-day chart, labelled
    page.select_option("#route-form select[name=expert]", str(helper.pk))
    shoot(page, artifacts, "dashboard-route")
    page.click("#route-form button[type=submit]")
    page.wait_for_selector("ul.messagelist li.success")
    assert unit.token in page.inner_text("ul.messagelist")
    # Someone holds the unit now: the alert is gone, and the expert's open lease shows.
    assert page.locator(f"li[data-unit='{unit.token}']").count() == 0
    row = page.locator(f"#expert-table tr[data-expert='{helper.pk}'] td").nth(3)
    assert row.inner_text() == "1"
    shoot(page, artifacts, "dashboard-routed")

    routed = Assignment.objects.get(unit=unit, expert=helper)
    assert routed.status == Assignment.Status.LEASED
    assert services.assignment_claim_next(user=helper.user, pool=study.pool) == routed


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_runs_page_refreshes_itself_as_verdicts_arrive(live_server, page_in, artifacts):
    study = open_study(cases=2, experts=ExpertFactory.create_batch(1), name="dash-runs")
    run = JudgeRunFactory(model=study.models_under_test.get(), dataset=study.dataset,
                          status="running", calls=2, cost=0.01)  # fmt: skip
    get_user_model().objects.create_superuser("admin-runs", "r@example.org", PASSWORD)
    page = page_in
    page.goto(f"{live_server.url}/admin/login/?next=/admin/dashboard/runs/")
    page.fill("#id_username", "admin-runs")
    page.fill("#id_password", PASSWORD)
    page.click("input[type=submit]")
    done = page.locator(f"#judge-runs tr[data-run='{run.pk}'] [data-field='done']")
    done.wait_for()
    assert done.inner_text() == "0"
    response = run.model.responses.first()
    items = list(response.case.rubric.values_list("pk", flat=True))
    verdicts_store(run_id=run.pk, response_id=response.pk, item_ids=items,
                   states=["met"] * len(items), reasons=[""] * len(items), raw="")  # fmt: skip
    # The page polls its JSON every few seconds and updates the row in place.
    page.wait_for_function(
        f"document.querySelector(\"#judge-runs tr[data-run='{run.pk}'] [data-field='done']\")"
        f".textContent === '{len(items)}'",
        timeout=15000,
    )
    shoot(page, artifacts, "dashboard-runs")
