"""A criterion edited while the expert has the unit open: the workbench sends back the version
it showed, and the label records it (headless Chromium against the live server)."""

import pytest

from annotation.models import Label, Submission
from benchmark.models import RubricItem
from benchmark.services.rubric import rubric_item_edit
from tests.builders.accounts import PASSWORD, ExpertFactory, UserFactory
from tests.builders.studies import open_study


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_label_keeps_the_version_on_screen_when_the_criterion_is_edited_meanwhile(
    live_server, browser_page
):
    expert = ExpertFactory(user__username="rater-rubric")
    open_study(cases=1, experts=[expert], name="rubric-e2e")
    page = browser_page
    page.goto(f"{live_server.url}/rate/rubric-e2e/")
    page.fill("input[name=username]", "rater-rubric")
    page.fill("input[name=password]", PASSWORD)
    page.press("input[name=password]", "Enter")
    page.wait_for_selector("#criteria li")
    token = page.inner_text("#unit-token")
    items = RubricItem.objects.filter(case__responses__annotation_units__token=token)
    edited = items.get(ability="warmth")
    untouched = items.exclude(pk=edited.pk)
    assert edited.text in page.inner_text("#criteria")
    # An admin edits the criterion now: the expert still has version 1 on screen.
    rubric_item_edit(item=edited, text=edited.text + "（修订）", author=UserFactory(), reason="r")
    rubric_item_edit(item=untouched.first(), points=9, author=UserFactory(), reason="r")

    count = page.locator("#criteria li").count()
    for _ in range(count):
        page.keyboard.press("1")
    assert page.inner_text("#progress") == f"已标注 {count} / {count} 项"
    page.keyboard.press("Enter")
    # The page says when the submit is in (polling the database instead can meet SQLite's
    # table lock while the server's submit transaction is open).
    page.wait_for_selector("#empty", state="visible")
    submission = Submission.objects.get(expert=expert)
    versions = dict(
        Label.objects.filter(submission=submission).values_list("rubric_item_id", "rubric_version")
    )
    assert len(versions) == count
    # Both edited criteria were labelled on the version 1 text the page showed.
    assert set(versions.values()) == {1}
    assert RubricItem.objects.get(pk=edited.pk).version == 2
