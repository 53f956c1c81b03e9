"""The three construction tiers in Chromium against the served app, in both languages: an
expert marks difficulty and reviews criteria with the keyboard and with the mouse, the author
revises and sends a draft, seniors vote with keys and mouse. Every page is readable at 1920,
1366 and 390 px (no sideways scroll), passes axe-core and shows the focus. Screenshots
``construct-<page>-<width>-<language>.png``."""

import pytest

from annotation.models import CriterionReview, DifficultyMark, PanelRound, PanelVote
from annotation.services.construction import (
    construction_task_claim_next,
    criterion_review_submit,
)
from benchmark.models import DraftCase
from tests.builders.accounts import PASSWORD
from tests.builders.browser import AXE
from tests.builders.construction import project_with_work_open
from tests.conftest import require
from tests.e2e.conftest import LOCALES, login
from tests.e2e.widths import readable_at_every_width


def _start(page, kind_index: int) -> None:
    """Click the Start button of the nth open work row (mouse)."""
    page.locator("table.construct-work tbody tr").nth(kind_index).locator("button").click()
    page.wait_for_selector("#construct-form")


@pytest.fixture
def built(language):
    require(AXE.exists(), f"needs axe-core at {AXE}: run `npm ci` (make test does)")
    return project_with_work_open(name=f"tiers-{language}")


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_difficulty_with_keys_then_with_the_mouse(live_server, page_in, artifacts, built):
    page, problems = page_in, []
    expert = built.experts[0]
    login(page, live_server, expert.user.username, PASSWORD, next_path="/construct/")
    page.wait_for_selector("table.construct-work")
    problems += readable_at_every_width(page, artifacts, "construct-home")
    _start(page, 1)  # rows by kind: criterion review, difficulty
    problems += readable_at_every_width(page, artifacts, "construct-difficulty")
    # Keys: H (hard), 2 (mixed emotions), Ctrl+Enter.
    page.keyboard.press("h")
    page.keyboard.press("2")
    page.keyboard.press("Control+Enter")
    page.wait_for_selector(".messages")
    mark = DifficultyMark.objects.get(task__draft=built.drafts[0])
    assert (mark.difficulty, mark.reason) == ("hard", "mixed_emotions")
    # Mouse: "other" without a comment is refused, the choice kept; with one it is saved.
    page.locator("input[name=difficulty][value=hard]").locator("xpath=..").click()
    page.locator("input[name=reason][value=other]").locator("xpath=..").click()
    page.click("#construct-form button[type=submit]")
    page.wait_for_selector(".banner.error")
    assert page.is_checked("input[name=reason][value=other]")
    problems += readable_at_every_width(page, artifacts, "construct-difficulty-refused")
    page.fill("#comment", "用户的诉求前后矛盾")
    page.click("#construct-form button[type=submit]")
    page.wait_for_selector(".messages")
    mark = DifficultyMark.objects.get(task__draft=built.drafts[1])
    assert (mark.difficulty, mark.reason, mark.comment) == ("hard", "other", "用户的诉求前后矛盾")
    assert not problems, "\n".join(problems)


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_criterion_review_with_keys_then_with_the_mouse(live_server, page_in, artifacts, built):
    page, problems = page_in, []
    expert = built.experts[0]
    login(page, live_server, expert.user.username, PASSWORD, next_path="/construct/")
    _start(page, 0)
    problems += readable_at_every_width(page, artifacts, "construct-review")
    # Keys: 1 (clear) moves to the next criterion; 2 (ambiguous) opens its comment.
    page.keyboard.press("1")
    page.keyboard.press("2")
    assert page.evaluate("document.activeElement.tagName") == "TEXTAREA"
    page.keyboard.type("哪一次考试？")
    page.keyboard.press("Escape")
    page.keyboard.press("j")
    page.keyboard.press("1")
    page.keyboard.press("Control+Enter")
    page.wait_for_selector(".messages")
    verdicts = CriterionReview.objects.filter(criterion__draft=built.drafts[0])
    assert sorted(verdicts.values_list("criterion__position", "verdict", "comment")) == [
        (0, "clear", ""),
        (1, "ambiguous", "哪一次考试？"),
        (2, "clear", ""),
    ]
    # Mouse: every criterion clear, submitted with the button.
    for item in page.locator("ol.review-criteria > li").all():
        item.locator("input[value=clear]").locator("xpath=..").click()
    page.click("#construct-form button[type=submit]")
    page.wait_for_selector(".messages")
    assert CriterionReview.objects.filter(criterion__draft=built.drafts[1]).count() == 3
    assert not problems, "\n".join(problems)


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_the_author_sends_and_seniors_vote_with_keys_and_mouse(
    live_server, page_in, artifacts, built
):
    page, problems = page_in, []
    for expert, verdict in zip(built.experts[:2], ("clear", "redundant"), strict=True):
        task = construction_task_claim_next(
            user=expert.user, project=built.project, kind="criterion_review"
        )
        ids = task.draft.criteria.values_list("pk", flat=True)
        criterion_review_submit(
            user=expert.user, task_id=task.pk,
            verdicts={pk: (verdict, "" if verdict == "clear" else "与第一条重复") for pk in ids},
        )  # fmt: skip
    login(page, live_server, built.author.user.username, PASSWORD, next_path="/construct/")
    page.click("a[href='/construct/revisions/']")
    page.wait_for_selector("section.author-draft")
    draft = built.drafts[0]
    # Mouse: open a criterion's form, revise its text with a reason.
    criterion = draft.criteria.get(position=1)
    form = page.locator(f"form[action='/construct/criteria/{criterion.pk}/']")
    page.locator(f"#draft-{draft.pk} details summary").nth(1).click()
    problems += readable_at_every_width(page, artifacts, "construct-revisions")
    form.locator("textarea[name=text]").fill("语气温和，不评判用户的选择")
    form.locator("input[name=reason]").fill("审核：与第一条重复")
    form.locator("button[value=revise]").click()
    page.wait_for_selector(".messages")
    criterion.refresh_from_db()
    assert (criterion.version, criterion.text) == (2, "语气温和，不评判用户的选择")
    page.locator(f"#draft-{draft.pk} form[action='/construct/send/{draft.pk}/'] button").click()
    page.wait_for_selector(".messages")
    assert PanelRound.objects.get(draft=draft).outcome == "pending"

    senior_page = page.context.browser.new_context(
        viewport={"width": 1366, "height": 900}, locale=LOCALES[page.language]
    ).new_page()
    senior_page.language = page.language
    votes = []
    for index, senior in enumerate(built.seniors):
        senior_page.context.clear_cookies()
        login(senior_page, live_server, senior.user.username, PASSWORD, next_path="/construct/")
        _start(senior_page, 2)  # rows: criterion review, difficulty, senior panel
        assert "与第一条重复" in senior_page.inner_text("ol.review-criteria")
        if index == 0:
            problems += readable_at_every_width(senior_page, artifacts, "construct-panel")
            senior_page.keyboard.press("a")
            senior_page.keyboard.press("Control+Enter")
        elif index == 1:
            senior_page.keyboard.press("r")  # a return goes to the reason at once
            senior_page.keyboard.type("标准 2 与标准 1 重复")
            senior_page.keyboard.press("Control+Enter")
        else:
            senior_page.locator("input[name=vote][value=accept]").locator("xpath=..").click()
            senior_page.click("#construct-form button[type=submit]")
        senior_page.wait_for_selector(".messages")
        votes.append(PanelVote.objects.get(task__expert=senior).vote)
    assert votes == ["accept", "return", "accept", "accept"]
    assert PanelRound.objects.get(draft=draft).outcome == "returned"
    assert DraftCase.objects.get(pk=draft.pk).status == "active"
    # The author reads the return on the revisions page.
    page.reload()
    assert "标准 2 与标准 1 重复" in page.inner_text(f"#draft-{draft.pk}")
    problems += readable_at_every_width(page, artifacts, "construct-revisions-returned")
    assert not problems, "\n".join(problems)
