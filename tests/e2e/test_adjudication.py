"""A senior expert adjudicates a split unit in the browser, keyboard only, in both languages."""

import pytest

from annotation.models import Label
from tests.builders.accounts import PASSWORD, ExpertFactory
from tests.builders.adjudication import CATASTROPHIC, WARMTH, item_at, split_study
from tests.e2e.conftest import login, shoot
from validation.models import GoldLabel, StudyUnit

REASONS = ["回应没有回应来访者的情绪 A", "回应提到了自伤 B"]


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_a_senior_decides_a_split_unit_with_reasons_from_the_keyboard(
    live_server, page_in, language, artifacts
):
    senior = ExpertFactory(tier="senior", user__username=f"senior-e2e-{language}")
    study, raters, _ = split_study(splits=["*"], senior=senior, name=f"adj-e2e-{language}")
    page = page_in

    login(page, live_server, senior.user.username, PASSWORD, next_path="/adjudicate/")
    assert page.get_attribute("html", "lang") == language
    assert study.name in page.inner_text("ul.studies")
    shoot(page, artifacts, "adjudication-queue")
    page.click(f"a[href='/adjudicate/{study.name}/']")

    page.wait_for_selector("#criteria li")
    assert page.locator("#criteria li").count() == 2  # only the two split criteria
    # Each criterion is its text alone: no rater's label on it, not even counted.
    criteria = page.locator("#criteria li .criterion").all_inner_texts()
    assert criteria == page.locator("#criteria li .text").all_inner_texts()
    body = page.inner_text("#unit")
    for rater in raters:  # blind to who voted what
        assert rater.user.username not in body and rater.pseudonym not in body
    assert study.models_under_test.get().name not in page.content()
    page.wait_for_function(
        r"/^\d\d:\d\d$/.test(document.getElementById('lease-timer').textContent)"
    )
    shoot(page, artifacts, "adjudication-unit")

    texts = page.locator("#criteria li .text").all_inner_texts()
    decided = {}
    for index, text in enumerate(texts):
        hit = index == 0
        page.keyboard.press("1" if hit else "0")  # marks and moves into the reason box
        page.keyboard.type(REASONS[index])
        page.keyboard.press("Escape")
        page.keyboard.press("j")
        decided[text] = (hit, REASONS[index])
    assert page.inner_text("#progress") == "2 / 2"
    shoot(page, artifacts, "adjudication-decided")
    page.keyboard.press("Enter")
    page.wait_for_selector("#empty", state="visible")
    shoot(page, artifacts, "adjudication-done")

    labels = Label.objects.filter(submission__kind="adjudication", submission__expert=senior)
    assert {label.rubric_item.text: (label.hit, label.note) for label in labels} == decided
    split = {item_at(study, WARMTH).pk, item_at(study, CATASTROPHIC).pk}
    gold = GoldLabel.objects.filter(study_unit__study=study)
    assert {g.rubric_item_id for g in gold.filter(provenance="adjudicated")} == split
    assert gold.count() == 4  # the other two keep their 3/3 majority
    for label in labels:
        assert gold.get(rubric_item=label.rubric_item).hit == label.hit
    assert study.units.get().state == StudyUnit.State.ADJUDICATED
