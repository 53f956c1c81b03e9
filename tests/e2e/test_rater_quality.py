"""The raters' quality table of the study report in Chromium: each rater's row in both languages
at desktop, laptop and phone widths, with screenshots of the section."""

import pytest
from django.contrib.auth import get_user_model

from tests.builders.quality import study_with_raters
from tests.e2e.conftest import LOCALES

WIDTHS = (1920, 1366, 390)


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("language", list(LOCALES))
def test_the_raters_table_reads_at_every_width(live_server, chromium, artifacts, language):
    study_with_raters(name="e2e-raters")
    get_user_model().objects.create_superuser("admin-r", "r@example.org", "pw-admin-raters-1")
    context = chromium.new_context(locale=LOCALES[language])
    page = context.new_page()
    page.goto(f"{live_server.url}/admin/login/?next=/admin/studies/e2e-raters/report/")
    page.fill("#id_username", "admin-r")
    page.fill("#id_password", "pw-admin-raters-1")
    page.click("input[type=submit]")
    page.wait_for_selector("table.raters")
    for width in WIDTHS:
        page.set_viewport_size({"width": width, "height": 900})
        table = page.locator("table.raters")
        assert table.locator("tr").count() == 1 + 3  # header and the three who rated
        assert table.bounding_box()["width"] <= width
        page.locator("#rater-quality").scroll_into_view_if_needed()
        page.screenshot(path=str(artifacts / f"rater-quality-{width}-{language}.png"))
    context.close()
