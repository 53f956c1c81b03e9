"""The study report page's stability section in Chromium, in both languages and three widths."""

import pytest
from django.contrib.auth import get_user_model

from tests.builders.studies import study_with_repeats

WIDTHS = (1920, 1366, 390)


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_the_stability_section_on_the_report_page(live_server, page_in, artifacts):
    study_with_repeats("e2e-stable")
    get_user_model().objects.create_superuser("admin-st", "a@example.org", "pw-admin-st-1")
    page = page_in
    page.goto(f"{live_server.url}/admin/login/?next=/admin/studies/e2e-stable/report/")
    page.fill("#id_username", "admin-st")
    page.fill("#id_password", "pw-admin-st-1")
    page.click("input[type=submit]")
    section = page.wait_for_selector("section.stability")
    text = section.inner_text()
    heading = {
        "en": "Judge stability over repeated runs",
        "zh-hans": "评判模型在重复运行中的稳定性",
    }
    assert heading[page.language] in text and "judge-a" in text
    for width in WIDTHS:
        page.set_viewport_size({"width": width, "height": 900})
        section.scroll_into_view_if_needed()
        box = section.bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= width + 1, (width, box)
        section.screenshot(path=str(artifacts / f"report-stability-{width}-{page.language}.png"))
