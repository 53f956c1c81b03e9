"""The admin's read-only assignment page shows the autosaved draft (issue 16: the draft is
columns of the assignment), labelled in the admin's language, at every width."""

import pytest
from django.contrib.auth import get_user_model

from annotation import services
from tests.builders.accounts import ExpertFactory
from tests.builders.labels import all_labels
from tests.builders.studies import open_study
from tests.e2e.conftest import shoot

PASSWORD = "pw-assignment-e2e-1"
NAMES = {"en": "Draft labels", "zh-hans": "草稿标注"}


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_the_assignment_page_shows_the_saved_draft(live_server, page_in, artifacts):
    expert = ExpertFactory()
    study = open_study(cases=1, experts=[expert], name="draft-admin")
    assignment = services.assignment_claim_next(user=expert.user, pool=study.pool)
    services.assignment_autosave(
        assignment=assignment, labels=all_labels(assignment)[:1], active_seconds=75
    )
    get_user_model().objects.create_superuser("admin-assign", "a@example.org", PASSWORD)
    page = page_in
    page.goto(f"{live_server.url}/admin/login/?next=/admin/")
    page.fill("#id_username", "admin-assign")
    page.fill("#id_password", PASSWORD)
    page.click("input[type=submit]")
    page.wait_for_selector("#project-pages")
    page.goto(f"{live_server.url}/admin/annotation/assignment/{assignment.pk}/change/")
    field = page.locator(".field-draft_labels")
    field.wait_for()
    assert NAMES[page.language] in field.inner_text()
    assert '"hit": true' in field.inner_text()
    assert "75" in page.locator(".field-draft_active_seconds").inner_text()
    for width in (1920, 1366, 390):
        page.set_viewport_size({"width": width, "height": 900})
        shoot(page, artifacts, f"admin-assignment-draft-{width}")
