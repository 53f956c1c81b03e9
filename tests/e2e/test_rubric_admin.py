"""An admin edits a criterion in the admin in headless Chromium and reads its history."""

import pytest
from django.contrib.auth import get_user_model

from benchmark.models import RubricItem, RubricItemVersion
from tests.builders.datasets import RubricItemFactory
from tests.e2e.conftest import shoot


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_admin_edits_a_criterion_and_reads_the_history(live_server, page_in, artifacts):
    item = RubricItemFactory(ability="warmth", points=3, text="回应中使用温暖的语气。")
    get_user_model().objects.create_superuser("admin-rubric", "a@example.org", "pw-rubric-e2e-1")
    page = page_in
    page.goto(f"{live_server.url}/admin/login/?next=/admin/benchmark/rubricitem/{item.pk}/change/")
    page.fill("#id_username", "admin-rubric")
    page.fill("#id_password", "pw-rubric-e2e-1")
    page.click("input[type=submit]")
    page.wait_for_selector("#id_reason")
    # Saving without a reason is refused by the form.
    page.fill("#id_text", "回应中使用温和的语气。")
    page.click("input[name=_save]")
    page.wait_for_selector(".errorlist")
    assert RubricItem.objects.get(pk=item.pk).version == 1
    page.fill("#id_text", "回应中使用温和的语气，并回应用户的处境。")
    page.fill("#id_points", "4")
    page.fill("#id_reason", "温暖一词太宽泛")
    page.click("input[name=_save]")
    page.wait_for_selector(".messagelist")
    stored = RubricItem.objects.get(pk=item.pk)
    assert (stored.version, stored.points) == (2, 4)
    assert RubricItemVersion.objects.get(item=item, number=2).author.username == "admin-rubric"

    page.goto(f"{live_server.url}/admin/benchmark/rubricitem/{item.pk}/versions/")
    page.wait_for_selector("#rubric-versions")
    rows = page.locator("#rubric-versions tr.version")
    assert rows.count() == 2
    newest = rows.nth(0)
    assert newest.get_attribute("data-number") == "2"
    text = newest.inner_text()
    assert "admin-rubric" in text and "温暖一词太宽泛" in text
    assert newest.locator("td.diff del").inner_text() == "暖"
    assert "和" in newest.locator("td.diff ins").first.inner_text()
    shoot(page, artifacts, "rubric-history")
