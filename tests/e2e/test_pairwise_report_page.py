"""The pairwise study's report on the admin's page in Chromium, both languages, at 1920, 1366
and 390 px: every section there, nothing out of view outside a scrolling table, axe clean."""

import pytest
from django.contrib.auth import get_user_model

from benchmark.llm.fake_server import FakeLLM
from tests.builders.accounts import ExpertFactory
from tests.builders.browser import axe_problems, out_of_view
from tests.builders.pairwise import (
    TRIO,
    answered_by,
    choose_all,
    draw,
    judge_pairwise,
    pairwise_study,
)


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_the_pairwise_report_page_reads_at_every_width(live_server, page_in, artifacts):
    answered_by(names=list(TRIO), cases=3, texts=lambda i, n: f"{TRIO[n]}（{i}）", name="pw")
    draw("set", "--dataset", "pw", "--models", "ann,bob,cat")
    raters = [ExpertFactory() for _ in range(3)]
    pairwise_study()
    choose_all(raters, lambda pair, index: "tie" if index == 2 else "a")
    with FakeLLM() as fake:
        judge_pairwise(fake, "set")
    get_user_model().objects.create_superuser("admin-pw", "p@example.org", "pw-admin-pw-1")
    page = page_in
    page.goto(f"{live_server.url}/admin/login/?next=/admin/studies/pairs/report/")
    page.fill("#id_username", "admin-pw")
    page.fill("#id_password", "pw-admin-pw-1")
    page.click("input[type=submit]")
    page.wait_for_selector("h2#rubric-preference")
    assert page.locator("h2#judge-1").count() == 1
    assert page.locator("table.figs").count() >= 6
    assert axe_problems(page, "pairwise study report") == []
    for width in (1920, 1366, 390):
        page.set_viewport_size({"width": width, "height": 900})
        assert out_of_view(page, "#content", scrolling="table.figs") == [], width
        page.screenshot(
            path=str(artifacts / f"pairwise-report-{width}-{page.language}.png"), full_page=True
        )
