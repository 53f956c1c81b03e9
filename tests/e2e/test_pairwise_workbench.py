"""The workbench on a pairwise pool (issue 43 item 3), in headless Chromium against the live
server: the case's dialogue and the two responses as A (shown first) and B, side by side on a
laptop and one under the other on a phone, no model named anywhere in the page; a choice made
with the mouse, with the keyboard and with a finger, each stored in the pair's own order (the
assignment decides which side is shown first), a double click sending it once and nothing
autosaved. Screenshots: ``pairwise-workbench-<1920|1366|390>-<language>.png``.
"""

import pytest

from annotation import services
from annotation.models import Assignment, Label, PairwiseChoice, Pool, Submission
from annotation.pairwise import first_shown
from benchmark.models import PairwisePair
from tests.builders.accounts import PASSWORD, ExpertFactory
from tests.builders.browser import AXE, LONG_RESPONSE
from tests.builders.pairwise import answered_by, draw
from tests.conftest import require
from tests.e2e.conftest import login
from tests.e2e.pairs import (
    MODELS,
    OPENINGS,
    assert_pair_shown_blind,
    pressed,
    stored,
    wait_for_pair,
)
from tests.e2e.widths import readable_at_every_width

STUDY = "pair-e2e"
# Every attribute of the workbench whose value may be a small number of its own.
NUMERIC = {"tabindex", "rows", "maxlength", "data-done", "data-total"}


def pair_pool(expert) -> None:
    """An open pairwise pool of three pairs (three cases, two models), the expert its rater."""
    answered_by(
        names=list(MODELS[:2]),
        cases=3,
        texts=lambda i, name: f"{OPENINGS[name]}（第 {i + 1} 题）{LONG_RESPONSE[: 120 + 60 * i]}",
        name=f"{STUDY}-data",
    )
    draw(f"{STUDY}-set", "--dataset", f"{STUDY}-data", "--models", ",".join(MODELS[:2]))
    pool = services.pool_create(
        name=STUDY,
        pairs=PairwisePair.objects.filter(pair_set__name=f"{STUDY}-set").order_by("pk"),
        experts=[expert],
        raters_per_unit=1,
        lease_seconds=600,
    )
    services.pool_set_status(pool=pool, status=Pool.Status.OPEN)


def held(expert) -> Assignment:
    """The pair the expert holds now, from the database."""
    return Assignment.objects.select_related(
        "unit__pair__response_a", "unit__pair__response_b"
    ).get(expert=expert, status=Assignment.Status.LEASED)


def assert_shown_blind(page, assignment: Assignment) -> None:
    assert_pair_shown_blind(page, assignment, root="#workbench", numeric=NUMERIC)


def assert_choice(assignment: Assignment, shown: str, reason: str = "") -> None:
    choice = PairwiseChoice.objects.get(submission__assignment=assignment)
    expected = (stored(assignment, shown), first_shown(assignment.shuffle_seed), reason)
    assert (choice.winner, choice.first_shown, choice.reason) == expected


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_an_expert_chooses_with_the_mouse_the_keyboard_and_a_finger(live_server, chromium):
    expert = ExpertFactory(user__username="pair-rater")
    pair_pool(expert)
    drafts: list[str] = []
    desk = chromium.new_context(viewport={"width": 1366, "height": 768}, locale="en-US")
    page = desk.new_page()
    page.on("request", lambda r: drafts.append(r.url) if "/draft/" in r.url else None)
    login(page, live_server, expert.user.username, PASSWORD, next_path=f"/rate/{STUDY}/")

    # The mouse: A, changed to B, a reason; a double click on Submit sends it once.
    token = wait_for_pair(page)
    unit = held(expert)
    assert_shown_blind(page, unit)
    assert "最近工作压力很大" in page.inner_text("#dialogue")
    a, b = (page.locator(f".pair-{side}").bounding_box() for side in "ab")
    assert a["y"] == b["y"] and a["x"] + a["width"] <= b["x"], (a, b)  # side by side
    for choice in ("a", "tie", "b"):
        box = page.locator(f"[data-choice={choice}]").bounding_box()
        assert box["width"] >= 44 and box["height"] >= 44, (choice, box)
    assert pressed(page) == []
    page.click("[data-choice=a]")
    page.click("[data-choice=b]")
    assert pressed(page) == ["b"]
    page.click("#reason")
    page.keyboard.type("B 更温暖")
    page.dblclick("#submit")
    token = wait_for_pair(page, after=token)
    assert_choice(unit, "b", "B 更温暖")
    assert Submission.objects.filter(expert=expert).count() == 1
    assert pressed(page) == [] and page.input_value("#reason") == ""

    # The keyboard: Enter before a choice only says so; every choice key, then A, a reason.
    unit = held(expert)
    assert_shown_blind(page, unit)
    page.keyboard.press("Enter")
    assert "Choose A, B or a tie first" in page.inner_text("#status")
    for key, choice in (("t", "tie"), ("3", "b"), ("a", "a"), ("=", "tie"), ("B", "b")):
        page.keyboard.press(key)
        assert pressed(page) == [choice], key
    page.keyboard.press("?")
    page.wait_for_selector("#help", state="visible")
    assert "B is better" in page.inner_text("#help") and "not met" not in page.inner_text("#help")
    page.keyboard.press("Escape")
    page.wait_for_selector("#help", state="hidden")
    page.keyboard.press("1")
    page.keyboard.press("n")
    page.keyboard.type("A 接住了情绪")
    page.keyboard.press("Escape")
    assert pressed(page) == ["a"]  # the letters typed in the reason chose nothing
    page.keyboard.press("Enter")
    wait_for_pair(page, after=token)
    assert_choice(unit, "a", "A 接住了情绪")
    desk.close()

    # A finger on a phone: the pair one under the other, a tap on Tie, a tap on Submit.
    phone = chromium.new_context(
        viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True, locale="zh-CN"
    )
    page = phone.new_page()
    page.on("request", lambda r: drafts.append(r.url) if "/draft/" in r.url else None)
    login(page, live_server, expert.user.username, PASSWORD, next_path=f"/rate/{STUDY}/")
    wait_for_pair(page)
    unit = held(expert)
    assert_shown_blind(page, unit)
    a, b = (page.locator(f".pair-{side}").bounding_box() for side in "ab")
    assert b["y"] >= a["y"] + a["height"], (a, b)  # stacked
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    page.tap("[data-choice=tie]")
    assert pressed(page) == ["tie"]
    page.tap("#submit")
    page.wait_for_selector("#empty", state="visible")  # the pool's three pairs are done
    assert_choice(unit, "tie")

    assert PairwiseChoice.objects.filter(submission__expert=expert).count() == 3
    assert not Label.objects.exists()
    assert drafts == []  # a pair's choice is never autosaved


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_the_pairwise_workbench_reads_well_at_every_width(live_server, page_in, artifacts):
    require(AXE.exists(), f"needs axe-core at {AXE}: run `npm ci` (make test does)")
    expert = ExpertFactory(user__username=f"pair-looks-{page_in.language}")
    pair_pool(expert)
    page = page_in
    login(page, live_server, expert.user.username, PASSWORD, next_path=f"/rate/{STUDY}/")
    wait_for_pair(page)
    page.keyboard.press("a")  # a pressed choice too: its colours
    problems = readable_at_every_width(page, artifacts, "pairwise-workbench")
    assert not problems, "\n".join(problems)
