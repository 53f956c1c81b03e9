"""The disagreement viewer in headless Chromium, in both languages: from the study dashboard,
filter to disagreements with the mouse, open an item with the keyboard, follow its rubric-edit
link, save an edit, and find the link back in the criterion's history. Readable at 1920, 1366
and 390 px with no sideways scroll; screenshots ``disagreements-<width>-<language>.png``."""

import pytest
from django.contrib.auth import get_user_model

from annotation.models import Expert
from benchmark.models import RubricItemVersion
from tests.builders.browser import AXE
from tests.builders.studies import rated_study
from tests.conftest import require
from tests.e2e.widths import readable_at_every_width, shoot_widths

WORDS = {
    "disagree": {"en": "disagree", "zh-hans": "不一致"},
    "prompted": {"en": "prompted by a disagreement", "zh-hans": "由分歧引发"},
}


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_from_a_disagreement_to_a_better_rubric(live_server, page_in, artifacts):
    require(AXE.exists(), f"needs axe-core at {AXE}: run `npm ci` (make test does)")
    page, lang = page_in, page_in.language
    rated_study(name="e2e-viewer", cases=4)
    get_user_model().objects.create_superuser("admin-viewer", "a@example.org", "pw-viewer-e2e-1")
    page.goto(f"{live_server.url}/admin/login/?next=/admin/dashboard/studies/e2e-viewer/")
    page.fill("#id_username", "admin-viewer")
    page.fill("#id_password", "pw-viewer-e2e-1")
    page.click("input[type=submit]")
    page.wait_for_selector("#disagreements-link")
    shoot_widths(page, artifacts, "disagreements-from-dashboard")
    page.goto(f"{live_server.url}/admin/studies/e2e-viewer/report/")
    shoot_widths(page, artifacts, "disagreements-from-report")
    page.click("#disagreements-link")
    page.wait_for_selector("#filters")

    # The mouse: judge-a's disagreements only.
    page.select_option("select[name=judge]", "judge-a")
    page.select_option("select[name=agreement]", "disagree")
    page.click("#filters button[type=submit]")
    page.wait_for_selector("details.item")
    assert "agreement=disagree" in page.url and "judge=judge-a" in page.url
    items = page.locator("details.item")
    assert items.count() > 0
    assert {items.nth(i).get_attribute("class") for i in range(items.count())} == {"item disagree"}
    assert WORDS["disagree"][lang] in items.first.locator(":scope > summary").inner_text()
    assert "agreement=disagree" in page.get_attribute("#csv", "href")

    # The keyboard: j selects the first item, o opens it.
    page.keyboard.press("j")
    page.keyboard.press("o")
    first = page.locator("details.item").first
    assert first.evaluate("d => d.open")
    body = first.locator(".body").inner_text()
    pseudonyms = list(
        Expert.objects.filter(user__is_staff=False).values_list("pseudonym", "user__username")
    )
    assert any(p in body for p, _ in pseudonyms)
    assert not any(u in body for _, u in pseudonyms)
    problems = readable_at_every_width(page, artifacts, "disagreements", presses=15)

    # e follows the item's rubric-edit link; the edit records the item.
    unit = first.get_attribute("data-unit")
    criterion = int(first.get_attribute("data-criterion"))
    page.locator("details.item > summary").first.focus()
    page.keyboard.press("e")
    page.wait_for_selector("#id_reason")
    assert unit in page.inner_text("#content")
    shoot_widths(page, artifacts, "disagreements-rubric-edit")
    page.fill("#id_text", page.input_value("#id_text") + "（请具体说明）")
    page.fill("#id_reason", "judge and experts read it differently")
    page.click("input[name=_save]")
    page.wait_for_selector(".messagelist")
    version = RubricItemVersion.objects.get(item_id=criterion, number=2)
    assert version.disagreement == {"study": "e2e-viewer", "unit": unit}

    page.goto(f"{live_server.url}/admin/benchmark/rubricitem/{criterion}/versions/")
    link = page.locator("#rubric-versions tr.version").first.locator(".disagreement a")
    assert WORDS["prompted"][lang] in link.inner_text() and unit in link.inner_text()
    shoot_widths(page, artifacts, "disagreements-rubric-history")
    link.click()
    page.wait_for_selector("details.item")
    pinned = page.locator("details.item")
    assert {pinned.nth(i).get_attribute("data-unit") for i in range(pinned.count())} == {unit}
    assert {pinned.nth(i).get_attribute("data-criterion") for i in range(pinned.count())} == {
        str(criterion)
    }
    assert problems == []
