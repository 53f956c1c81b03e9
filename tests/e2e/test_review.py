"""Looking back at my work in a real browser, in both languages: find a unit on /done/, revise it
with the mouse while it waits for ratings, flag a settled one, and a senior answers the flag.
Every page readable at 1920, 1366 and 390 px with no sideways scroll and passing axe-core
(no serious or critical violation, a visible focus); screenshots
``review-<page>-<width>-<language>.png``.
"""

import pytest

from annotation import services
from annotation.models import Assignment, Expert, ReviewFlag
from tests.builders.accounts import PASSWORD, ExpertFactory
from tests.builders.browser import AXE
from tests.builders.labels import all_labels
from tests.builders.studies import open_study
from tests.conftest import require
from tests.e2e.conftest import LOCALES, login
from tests.e2e.widths import readable_at_every_width

WORDS = {
    "revisable": {"en": "can be revised", "zh-hans": "可修改"},
    "saved": {"en": "Your revision is saved", "zh-hans": "修改已保存"},
    "flagged": {"en": "a senior expert will look at it", "zh-hans": "资深专家会查看"},
    "answered": {"en": "Your answer is recorded", "zh-hans": "你的答复已记录"},
}


def rate(expert, study, *, hit=True):
    assignment = services.assignment_claim_next(user=expert.user, pool=study.pool)
    services.assignment_submit(assignment=assignment, labels=all_labels(assignment, hit=hit))
    return Assignment.objects.get(pk=assignment.pk)


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_revise_with_the_mouse_then_flag_and_a_senior_answers(
    live_server, page_in, artifacts, chromium
):
    require(AXE.exists(), f"needs axe-core at {AXE}: run `npm ci` (make test does)")
    page, lang = page_in, page_in.language
    problems = []
    raters = [ExpertFactory(user__username=f"rev-{lang}-{i}") for i in range(3)]
    senior = ExpertFactory(user__username=f"senior-{lang}", tier=Expert.Tier.SENIOR)
    study = open_study(cases=2, experts=[*raters, senior], name="review")
    mine = rate(raters[0], study, hit=True)
    for rater, hit in ((raters[1], True), (raters[2], False)):  # the same unit: settled
        services.unit_route_to_expert(unit=mine.unit, expert=rater, actor=None)
        rate(rater, study, hit=hit)
    waiting = rate(raters[0], study, hit=True)  # the other unit still waits for two ratings
    assert mine.unit_id != waiting.unit_id

    login(page, live_server, raters[0].user.username, PASSWORD, next_path="/done/")
    assert WORDS["revisable"][lang] in page.inner_text("main")
    problems += readable_at_every_width(page, artifacts, "review-done", presses=15)
    page.fill("#done-q", waiting.unit.token)
    page.click("form.search button")
    page.wait_for_load_state()
    assert page.locator("table.done tbody tr").count() == 1

    # Revise the waiting unit with the mouse alone: every criterion to "not met".
    page.click(f"a[href='/done/{waiting.public_id}/']")
    page.wait_for_selector("form.revise")
    problems += readable_at_every_width(page, artifacts, "review-revise", presses=15)
    for radio in page.locator("form.revise input[type=radio][value='0']").all():
        radio.click()
    page.click("form.revise button[type=submit]")
    page.wait_for_selector(".messages")
    assert WORDS["saved"][lang] in page.inner_text(".messages")
    assert set(waiting.submission.labels.values_list("hit", flat=True)) == {False}

    # The settled unit: no revising, a flag with a reason.
    page.goto(f"{live_server.url}/done/{mine.public_id}/")
    assert page.locator("form.revise").count() == 0
    page.fill("#flag-reason", "回应确实命名了来访者的情绪")
    page.click("form.flag button[type=submit]")
    page.wait_for_selector(".messages")
    assert WORDS["flagged"][lang] in page.inner_text(".messages")
    problems += readable_at_every_width(page, artifacts, "review-flagged", presses=15)

    # The senior answers in the senior queue.
    desk = chromium.new_context(locale=LOCALES[lang])
    senior_page = desk.new_page()
    senior_page.language = lang
    login(senior_page, live_server, senior.user.username, PASSWORD, next_path="/adjudicate/")
    flag = ReviewFlag.objects.get()
    problems += readable_at_every_width(senior_page, artifacts, "review-senior-queue", presses=15)
    senior_page.click(f"a[href='/adjudicate/flags/{flag.pk}/']")
    senior_page.wait_for_selector("#flag-answer")
    # Beside each of the rater's labels, the unit's gold and how it was reached (2 met, 1 not).
    assert senior_page.locator(".review-labels .gold").first.inner_text().count("2/1") == 1
    problems += readable_at_every_width(senior_page, artifacts, "review-flag-answer", presses=15)
    senior_page.fill("#flag-answer", "三位中两位判为达到")
    senior_page.click("button[value=dismissed]")
    senior_page.wait_for_selector(".messages")
    assert WORDS["answered"][lang] in senior_page.inner_text(".messages")
    desk.close()

    page.reload()
    assert "三位中两位判为达到" in page.inner_text("main")
    flag.refresh_from_db()
    assert flag.status == ReviewFlag.Status.DISMISSED
    assert not problems, "\n".join(problems)
