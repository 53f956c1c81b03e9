"""An expert submits a unit in the workbench, opens its discussion, posts on a criterion and
votes on a colleague's comment — in Chinese and in English, with screenshots."""

import pytest

from annotation import services
from annotation.models import Comment, CommentVote, Submission
from tests.builders.accounts import PASSWORD, ExpertFactory
from tests.builders.labels import all_labels
from tests.builders.studies import open_study
from tests.e2e.conftest import login, shoot

STUDY = "e2e-discuss"


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_expert_discusses_a_submitted_unit(live_server, page_in, artifacts):
    rater = ExpertFactory(user__username="discuss-e2e", display_name="Rater E2E")
    colleagues = ExpertFactory.create_batch(2)
    study = open_study(cases=1, experts=[rater, *colleagues], name=STUDY)
    for colleague in colleagues:
        assignment = services.assignment_claim_next(user=colleague.user, pool=study.pool)
        services.assignment_submit(assignment=assignment, labels=all_labels(assignment))
    case = study.pool.units.get().response.case
    item = case.rubric.order_by("position").last()
    theirs = services.comment_post(
        user=colleagues[0].user, case=case, rubric_item=item, body="我认为这一条没有命中。"
    )
    page = page_in

    login(page, live_server, "discuss-e2e", PASSWORD, next_path=f"/rate/{STUDY}/")
    page.wait_for_selector("#criteria li")
    assert page.get_attribute("html", "lang") == page.language
    for index in range(page.locator("#criteria li").count()):
        page.keyboard.press("1" if index % 2 == 0 else "0")
    page.wait_for_function("() => !document.getElementById('submit').disabled")
    page.keyboard.press("Enter")
    # The page says when the submit is in (polling the database instead can meet SQLite's
    # table lock while the server's submit transaction is open).
    page.wait_for_selector("#empty", state="visible")
    assert Submission.objects.filter(expert=rater).exists()

    page.goto(f"{live_server.url}/done/")
    page.click("a.discuss")
    page.wait_for_selector("#thread-case")
    token = study.pool.units.get().token
    assert page.url.endswith(f"/discuss/{token}/")
    assert page.inner_text("#unit-token") == token
    shoot(page, artifacts, "discussion-open")

    # Post on the criterion the colleague commented on; the thread is found by its text.
    thread = page.locator("li.thread", has_text=item.text)
    thread.locator("textarea[name=body]").fill("同意，回应里没有提出具体的下一步。")
    thread.locator("form.post button[type=submit]").click()
    page.wait_for_load_state()
    thread = page.locator("li.thread", has_text=item.text)
    assert "同意，回应里没有提出具体的下一步。" in thread.inner_text()
    mine = Comment.objects.get(author=rater.user)
    assert mine.rubric_item == item and mine.case == case
    assert "Rater E2E" in page.inner_text(f"#comment-{mine.pk}")
    # Nobody votes on their own comment: no buttons there.
    assert page.locator(f"#comment-{mine.pk} button.vote").count() == 0

    page.click(f"#comment-{theirs.pk} button.vote.up")
    page.wait_for_selector(f"#comment-{theirs.pk}[data-score='1'] button.vote.up.on")
    assert CommentVote.objects.get(comment=theirs, user=rater.user).value == 1
    page.click(f"#comment-{theirs.pk} button.vote.down")
    page.wait_for_selector(f"#comment-{theirs.pk}[data-score='-1'] button.vote.down.on")
    assert CommentVote.objects.get(comment=theirs, user=rater.user).value == -1
    page.click(f"#comment-{theirs.pk} button.vote.down")  # pressing it again removes the vote
    page.wait_for_selector(f"#comment-{theirs.pk}[data-score='0']")
    assert not CommentVote.objects.filter(comment=theirs, user=rater.user).exists()
    page.click(f"#comment-{theirs.pk} button.vote.up")
    page.wait_for_selector(f"#comment-{theirs.pk}[data-score='1']")
    page.locator(f"#comment-{mine.pk}").scroll_into_view_if_needed()
    shoot(page, artifacts, "discussion-posted-voted")
